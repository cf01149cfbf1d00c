package routing_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestModelTargetKeepsTheMatch: `model openrouter,* *` routes by the
// matcher and sends the rest of the name upstream; the client sees the
// name it asked for. On an Anthropic-format upstream the body is the
// client's with only the model changed.
func TestModelTargetKeepsTheMatch(t *testing.T) {
	openai := testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1730000000,"model":"anthropic/claude-sonnet-4","choices":[{"index":0,"message":{"role":"assistant","content":"from openrouter"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`)
	})
	vendor := namedUpstream(t, "vendor")
	site := fmt.Sprintf(`@openrouter thinkgate model openrouter,*
handle @openrouter {
	thinkgate openai {
		api_key test-key
		model openrouter,* *
		signing_key test-signing-key
	}
	reverse_proxy %s
}
handle {
	thinkgate anthropic {
		model vendor,*,* *-*
		signing_key test-signing-key
	}
	reverse_proxy %s
}`, openai.Addr(), vendor.Addr())
	gw := testgw.Start(t, testgw.SlotRouting, site)
	client := gw.Client()

	msg, err := client.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model:     "openrouter,anthropic/claude-sonnet-4",
		MaxTokens: 100,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Hello"))},
		Thinking:  anthropic.ThinkingConfigParamUnion{OfDisabled: &anthropic.ThinkingConfigDisabledParam{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if msg.Model != "openrouter,anthropic/claude-sonnet-4" || text(*msg) != "text: from openrouter" {
		t.Errorf("model %q, content %q", msg.Model, text(*msg))
	}
	if got, want := string(openai.Last(t).Body), `{"model":"anthropic/claude-sonnet-4","messages":[{"role":"user","content":"Hello"}],"max_tokens":100}`; got != want {
		t.Errorf("openai upstream body\n got %s\nwant %s", got, want)
	}

	body := `{"model":"vendor,claude,sonnet","max_tokens":10,` + user + `}`
	if got := ask(t, gw, body); got != "text: from vendor" {
		t.Errorf("answer %q", got)
	}
	if got, want := string(vendor.Last(t).Body), `{"max_tokens":10,"messages":[{"role":"user","content":"Which route?"}],"model":"claude-sonnet"}`; got != want {
		t.Errorf("anthropic upstream body\n got %s\nwant %s", got, want)
	}
}

// get sends a GET with the client's key and reads the answer.
func get(t *testing.T, gw *testgw.Gateway, path string, headers ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", gw.URL+path, nil)
	req.Header.Set("x-api-key", "client-key")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := gw.Tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestModelsList: GET /v1/models lists the plain names of the model rules,
// paged as Anthropic pages it; the SDK's auto-pager walks every page and
// Models.Get finds each; an unknown id is a 404 not_found_error.
func TestModelsList(t *testing.T) {
	up := namedUpstream(t, "default")
	gw := testgw.Start(t, testgw.SlotRouting, fmt.Sprintf(`thinkgate openai {
	api_key test-key
	model claude-haiku-4-5 gpt-4.1-mini
	model claude-opus-4-6 o3
	model claude-sonnet-4-5 gpt-4.1
	model claude-* gpt-4.1
}
reverse_proxy %s`, up.Addr()))
	client := gw.Client()
	pager := client.Models.ListAutoPaging(context.Background(), anthropic.ModelListParams{Limit: anthropic.Int(2)})
	var ids []string
	for pager.Next() {
		m := pager.Current()
		ids = append(ids, m.ID)
		if m.DisplayName != m.ID || m.Type != "model" || m.CreatedAt.Unix() != 0 {
			t.Errorf("model %+v", m)
		}
	}
	if err := pager.Err(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids, " "); got != "claude-haiku-4-5 claude-opus-4-6 claude-sonnet-4-5" {
		t.Errorf("listed %s", got)
	}
	m, err := client.Models.Get(context.Background(), "claude-opus-4-6", anthropic.ModelGetParams{})
	if err != nil || m.ID != "claude-opus-4-6" || m.DisplayName != "claude-opus-4-6" {
		t.Errorf("Get: %+v, %v", m, err)
	}
	_, err = client.Models.Get(context.Background(), "claude-nope", anthropic.ModelGetParams{})
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Errorf("Get of an unknown model: %v", err)
	}

	for _, c := range []struct {
		path   string
		status int
		want   string
	}{
		{"/v1/models?limit=1&after_id=claude-haiku-4-5", 200,
			`{"data":[{"type":"model","id":"claude-opus-4-6","display_name":"claude-opus-4-6","created_at":"1970-01-01T00:00:00Z"}],"has_more":true,"first_id":"claude-opus-4-6","last_id":"claude-opus-4-6"}`},
		{"/v1/models?before_id=claude-sonnet-4-5&limit=1", 200,
			`{"data":[{"type":"model","id":"claude-opus-4-6","display_name":"claude-opus-4-6","created_at":"1970-01-01T00:00:00Z"}],"has_more":true,"first_id":"claude-opus-4-6","last_id":"claude-opus-4-6"}`},
		{"/v1/models/claude-nope", 404, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-nope"}}`},
		{"/v1/models?limit=1001", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"limit: must be a whole number from 1 to 1000, got \"1001\""}}`},
	} {
		if status, body := get(t, gw, c.path); status != c.status || body != c.want {
			t.Errorf("GET %s: %d %s\nwant %d %s", c.path, status, body, c.status, c.want)
		}
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream received %d requests", n)
	}
}

// TestModelsAdvertised: advertise_models replaces the derived list (a
// name with a slash is found by Models.Get, which escapes it); with
// client_keys the list is guarded like every path; advertise_models off
// leaves GET /v1/models to the upstream, as before.
func TestModelsAdvertised(t *testing.T) {
	up := namedUpstream(t, "upstream")
	gw := testgw.Start(t, testgw.SlotRouting, fmt.Sprintf(`thinkgate openai {
	api_key test-key
	client_keys client-key
	model claude-haiku-4-5 gpt-4.1-mini
	advertise_models openrouter,anthropic/claude-sonnet-4 claude-haiku-4-5
}
reverse_proxy %s`, up.Addr()))
	client := gw.Client()
	page, err := client.Models.List(context.Background(), anthropic.ModelListParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 2 || page.Data[0].ID != "openrouter,anthropic/claude-sonnet-4" || page.Data[1].ID != "claude-haiku-4-5" || page.HasMore {
		t.Errorf("page %+v", page)
	}
	m, err := client.Models.Get(context.Background(), "openrouter,anthropic/claude-sonnet-4", anthropic.ModelGetParams{})
	if err != nil || m.ID != "openrouter,anthropic/claude-sonnet-4" {
		t.Errorf("Get: %+v, %v", m, err)
	}
	wrong := gw.Client(option.WithAPIKey("wrong-key"))
	_, err = wrong.Models.List(context.Background(), anthropic.ModelListParams{})
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 {
		t.Errorf("List with a wrong key: %v", err)
	}
	for _, key := range []string{"wrong-key", ""} {
		if status, body := get(t, gw, "/v1/models/claude-haiku-4-5", "x-api-key", key); status != 401 ||
			body != `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}` {
			t.Errorf("Get with key %q: %d %s", key, status, body)
		}
	}

	gw = testgw.Start(t, testgw.SlotRouting, fmt.Sprintf(`thinkgate openai {
	api_key test-key
	model claude-haiku-4-5 gpt-4.1-mini
	advertise_models off
}
reverse_proxy %s`, up.Addr()))
	before := len(up.Requests())
	get(t, gw, "/v1/models")
	if r := up.Requests(); len(r) != before+1 || r[len(r)-1].Method != "GET" || r[len(r)-1].Path != "/v1/models" {
		t.Errorf("the upstream did not get GET /v1/models: %+v", r[before:])
	}
}
