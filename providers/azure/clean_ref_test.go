package azure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/buger/jsonparser"

	"github.com/thinkgate/thinkgate/internal/fuzzcheck"
	"github.com/thinkgate/thinkgate/internal/jsonbytes"
	"github.com/thinkgate/thinkgate/internal/providertest"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// The functions below are cleaning as it was written with jsonparser's
// lookups, kept as the reference the vectorised walk is compared with.

func rebuildObjectRef(body []byte, fields, set map[string]json.RawMessage, del map[string]bool) ([]byte, error) {
	out := make([]byte, 0, len(body)+64)
	out = append(out, '{')
	written := make(map[string]bool, len(fields))
	member := func(k string, v []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = jsonbytes.AppendString(out, k)
		out = append(out, ':')
		out = append(out, v...)
	}
	err := jsonparser.ObjectEach(body, func(key, _ []byte, _ jsonparser.ValueType, _ int) error {
		// fields is keyed as encoding/json decodes keys: unescaped, with each
		// invalid UTF-8 byte as U+FFFD; jsonparser hands over the raw key.
		k, err := jsonparser.ParseString(key)
		if err != nil {
			return err
		}
		k = jsonKey(k)
		if written[k] || del[k] {
			return nil
		}
		written[k] = true
		if v, ok := set[k]; ok {
			member(k, v)
		} else if v, ok := fields[k]; ok {
			member(k, v)
		} else {
			return fmt.Errorf("field %q: cannot be re-encoded", k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"model", "messages", "tools"} {
		if v, ok := set[k]; ok && !written[k] {
			member(k, v)
		}
	}
	return append(out, '}'), nil
}

func cleanMessagesRef(raw []byte, ch *Changes) ([]byte, bool, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		return raw, false, nil // ParseRequest let it through; Azure will say what it thinks
	}
	out := make([]byte, 0, len(raw))
	out = append(out, '[')
	changed := false
	var cbErr error
	var kept [][]byte // one message's kept blocks, reused
	_, err := jsonparser.ArrayEach(raw, func(msg []byte, typ jsonparser.ValueType, _ int, _ error) {
		if cbErr != nil {
			return
		}
		n := len(out)
		if n > 1 {
			out = append(out, ',')
		}
		if typ != jsonparser.Object {
			out = append(out, msg...)
			return
		}
		var keep, mChanged bool
		out, kept, keep, mChanged, cbErr = appendCleanMessageRef(out, kept[:0], msg, ch)
		if !keep {
			out = out[:n]
			ch.Messages++
			mChanged = true
		}
		changed = changed || mChanged
	})
	if err == nil {
		err = cbErr
	}
	if err != nil {
		return nil, false, err
	}
	return append(out, ']'), changed, nil
}

func appendCleanMessageRef(dst []byte, kept [][]byte, msg []byte, ch *Changes) (_ []byte, _ [][]byte, keep, changed bool, err error) {
	content, typ, end, err := jsonparser.Get(msg, "content")
	if err == jsonparser.KeyPathNotFoundError {
		return dst, kept, false, true, nil
	}
	if err != nil {
		return dst, kept, false, false, err
	}
	switch typ {
	case jsonparser.Null:
		return dst, kept, false, true, nil
	case jsonparser.String:
		s, err := jsonparser.ParseString(content)
		if err != nil {
			return dst, kept, false, false, err
		}
		keep = strings.TrimSpace(s) != ""
		return append(dst, msg...), kept, keep, !keep, nil
	case jsonparser.Array:
	default:
		return append(dst, msg...), kept, true, false, nil
	}

	dropped := 0
	_, err = jsonparser.ArrayEach(content, func(block []byte, t jsonparser.ValueType, _ int, _ error) {
		if t == jsonparser.Object && dropBlockRef(block, ch) {
			dropped++
			return
		}
		kept = append(kept, block)
	})
	if err != nil {
		return dst, kept, false, false, err
	}
	if len(kept) == 0 {
		return dst, kept, false, true, nil
	}
	if dropped == 0 {
		return append(dst, msg...), kept, true, false, nil
	}
	// The content array is replaced where it stands.
	dst = append(dst, msg[:end-len(content)]...)
	dst = append(dst, '[')
	for i, b := range kept {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, b...)
	}
	dst = append(dst, ']')
	return append(dst, msg[end:]...), kept, true, true, nil
}

func dropBlockRef(block []byte, ch *Changes) bool {
	// Raw string bodies suffice: the values compared and the gateway's
	// envelope (base64url and dots) never need unescaping.
	typ, _, _, _ := jsonparser.Get(block, "type")
	switch string(typ) {
	case "thinking":
		sig, t, _, _ := jsonparser.Get(block, "signature")
		if t != jsonparser.String || len(sig) == 0 {
			ch.Thinking++
			return true
		}
		if wire.IsGatewaySignature(sig) {
			ch.Thinking++
			ch.GatewaySigned++
			return true
		}
	case "redacted_thinking":
		if data, t, _, _ := jsonparser.Get(block, "data"); t != jsonparser.String || len(data) == 0 || wire.IsGatewaySignature(data) {
			ch.Redacted++
			return true
		}
	}
	return false
}

// cleanBothWays cleans the messages and rebuilds the body both ways.
func cleanBothWays(t *testing.T, body []byte) {
	t.Helper()
	req, err := wire.ParseRequest(body)
	if err != nil {
		return
	}
	if raw, ok := req.Fields["messages"]; ok {
		var ch, chRef Changes
		got, changed, err := cleanMessages(raw, &ch)
		want, changedRef, errRef := cleanMessagesRef(raw, &chRef)
		if string(got) != string(want) || changed != changedRef || (err == nil) != (errRef == nil) || !reflect.DeepEqual(ch, chRef) {
			t.Fatalf("cleanMessages(%s):\nwalk: %s %v %v %+v\nref:  %s %v %v %+v", raw, got, changed, err, ch, want, changedRef, errRef, chRef)
		}
	}
	set := map[string]json.RawMessage{"model": []byte(`"x"`)}
	del := map[string]bool{"thinking": true}
	want, errRef := rebuildObjectRef(body, req.Fields, set, del)
	// With the order the walk recorded, and without (a request decoded by
	// encoding/json).
	for _, order := range [][]string{req.FieldOrder(), nil} {
		got, err := rebuildObject(providertest.DirtyBody, body, order, req.Fields, set, del)
		if string(got) != string(want) || (err == nil) != (errRef == nil) {
			t.Fatalf("rebuildObject(%s, %q):\nwalk: %s %v\nref:  %s %v", body, order, got, err, want, errRef)
		}
	}
}

var cleanSeeds = []string{
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":""},{"type":"redacted_thinking","data":""},{"type":"text","text":"x"}]},{"role":"user","content":"  "},{"role":"user"},{"role":"user","content":null},{"role":"user","content":[]},"s",{"role":"assistant","content":[{"t\u0079pe":"thinking","thinking":"t","signature":"tg1.a.b"}]}]}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"type":"thinking","type":"text","signature":"s","signature":""},{"type":"thinking","signature":5},{"type":"redacted_thinking","data":"d"}]}], "m\u006fdel" : "n", "thinking":{}}`,
	`{"model":"m","messages":[{"role":"assistant","content":[{"\ud800":1,"type":"thinking"},{"type":"thinking","\ud800":1,"signature":"s"}],"content":[]}]}`,
}

// TestCleanMatchesReference: the walk cleans as the jsonparser lookups did.
func TestCleanMatchesReference(t *testing.T) {
	for _, s := range append(cleanSeeds, fuzzcheck.Seeds...) {
		cleanBothWays(t, []byte(s))
	}
}

// FuzzCleanMatchesReference: for any request, the walk cleans its messages
// and rebuilds its body byte for byte as the jsonparser lookups did.
func FuzzCleanMatchesReference(f *testing.F) {
	for _, s := range append(cleanSeeds, fuzzcheck.Seeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(cleanBothWays)
}
