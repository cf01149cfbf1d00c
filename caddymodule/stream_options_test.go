package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// The stream bounds: max_event_size on the handler, max_queued on the
// openai provider; both take sizes and reach the JSON config.
func TestStreamBoundOptions(t *testing.T) {
	d := caddyfile.NewTestDispenser("thinkgate openai {\n max_event_size 2MiB\n max_queued 512KiB\n}")
	var h Handler
	if err := h.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(h)
	want := `{"provider":{"max_queued":524288,"name":"openai"},"max_event_size":2097152}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, c := range []struct{ input, want string }{
		{"thinkgate openai {\n max_event_size lots\n}", "max_event_size:"},
		{"thinkgate openai {\n max_event_size 0\n}", "max_event_size: must be between 1B and 1GiB"},
		{"thinkgate openai {\n max_event_size 2GiB\n}", "max_event_size: must be between 1B and 1GiB"},
		{"thinkgate openai {\n max_queued\n}", "wrong argument count"},
		{"thinkgate openai {\n max_queued 0\n}", "max_queued: 0 is not allowed; leave the option out for its default, at Testfile:2"},
		{"thinkgate openai {\n max_queued 2GiB\n}", "max_queued: must be between 1B and 1GiB, got 2147483648, at Testfile:2"},
		{"thinkgate anthropic {\n max_queued 1MiB\n}", "thinkgate anthropic: unknown option 'max_queued'"},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.input))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.input, err, c.want)
		}
	}
	if err := (&Handler{MaxEventSize: -1}).Validate(); err == nil || err.Error() != "max_event_size: must not be negative" {
		t.Errorf("Validate: %v", err)
	}
}
