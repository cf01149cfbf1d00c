package tokens_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/thinkgate/thinkgate/internal/eventstreamtest"
	"github.com/thinkgate/thinkgate/internal/testgw"
	"github.com/thinkgate/thinkgate/providers/amazonq"
)

// pdfData is a PDF's first bytes, base64: the gateway never reads them.
const pdfData = "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoK"

// The request of OpenAI's token-counting guide with tools (the cookbook's
// "How to count tokens with tiktoken", section 7) in Anthropic's form:
// converted for Chat Completions it is the guide's request, for which the
// OpenAI API reported 101 prompt tokens on gpt-4o and gpt-4o-mini.
func weatherCount() anthropic.MessageCountTokensParams {
	return anthropic.MessageCountTokensParams{
		Model:    "gpt-4o",
		System:   anthropic.MessageCountTokensParamsSystemUnion{OfString: anthropic.String("You are a helpful assistant that can answer to questions about the weather.")},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather like in San Francisco?"))},
		Tools: []anthropic.MessageCountTokensToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        "get_current_weather",
			Description: anthropic.String("Get the current weather in a given location"),
			InputSchema: anthropic.ToolInputSchemaParam{
				Properties: map[string]any{
					"location": map[string]any{"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
					"unit":     map[string]any{"type": "string", "description": "The unit of temperature to return", "enum": []string{"celsius", "fahrenheit"}},
				},
				Required: []string{"location"},
			},
		}}},
	}
}

// pdfMessage is a user turn with a text and a base64 PDF document.
func pdfMessage(model string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: 1024,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(
			anthropic.NewTextBlock("Summarise this."),
			anthropic.NewDocumentBlock(anthropic.Base64PDFSourceParam{Data: pdfData}),
		)},
	}
}

// openaiSite asks for no thinking hint, so that the upstream's request is
// the client's alone.
const openaiSite = "thinkgate openai {\n\tthinking_mode none\n}\nreverse_proxy "

func openaiUpstream(t *testing.T) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1730000000,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"A one-page PDF."},"finish_reason":"stop"}],`+
			`"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0}}}`)
	})
}

// TestCountTokensOpenAI: count_tokens on openai is answered by the gateway
// with the guide's request's count as the OpenAI API reported it, and
// nothing reaches the upstream.
func TestCountTokensOpenAI(t *testing.T) {
	up := openaiUpstream(t)
	gw := testgw.Start(t, testgw.SlotTokens, openaiSite+up.Addr())
	client := gw.Client()
	res, err := client.Messages.CountTokens(context.Background(), weatherCount())
	if err != nil {
		t.Fatal(err)
	}
	if res.InputTokens != 101 {
		t.Errorf("input_tokens %d, want 101 (the OpenAI API's count)", res.InputTokens)
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests", n)
	}
}

// TestCountTokensOpenAIRefused: a request the conversion refuses gets the
// same 400 from count_tokens as from messages.
func TestCountTokensOpenAIRefused(t *testing.T) {
	up := openaiUpstream(t)
	gw := testgw.Start(t, testgw.SlotTokens, openaiSite+up.Addr())
	const want = `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.0: document block with a url source (the gateway fetches nothing: send the document as base64 data or text) is not supported by the openai provider"}}`
	for _, path := range []string{"/v1/messages/count_tokens", "/v1/messages"} {
		res, body := gw.PostRead(path, `{"model":"gpt-4o","max_tokens":10,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"}}]}]}`)
		if res.StatusCode != 400 || body != want {
			t.Errorf("%s: %d %s", path, res.StatusCode, body)
		}
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("the upstream got %d requests", n)
	}
}

// TestPDFOpenAI: a base64 PDF reaches Chat Completions as a file part; the
// answer's cached input is cache_read_input_tokens, apart from
// input_tokens.
func TestPDFOpenAI(t *testing.T) {
	up := openaiUpstream(t)
	gw := testgw.Start(t, testgw.SlotTokens, openaiSite+up.Addr())
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), pdfMessage("gpt-4o"))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"model":"gpt-4o","messages":[{"role":"user","content":[{"type":"text","text":"Summarise this."},` +
		`{"type":"file","file":{"filename":"document.pdf","file_data":"data:application/pdf;base64,` + pdfData + `"}}]}],"max_tokens":1024}`
	if got := string(up.Last(t).Body); got != want {
		t.Errorf("upstream body\n got %s\nwant %s", got, want)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "A one-page PDF." ||
		msg.Usage.InputTokens != 86 || msg.Usage.CacheReadInputTokens != 1920 || msg.Usage.CacheCreationInputTokens != 0 || msg.Usage.OutputTokens != 300 {
		t.Errorf("message %s", msg.RawJSON())
	}
}

func responsesUpstream(t *testing.T) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/input_tokens") {
			io.WriteString(w, `{"object":"response.input_tokens","input_tokens":4321}`)
			return
		}
		io.WriteString(w, `{"id":"resp_1","object":"response","created_at":1730000000,"status":"completed","model":"gpt-5",`+
			`"output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"A one-page PDF.","annotations":[]}]}],`+
			`"usage":{"input_tokens":2006,"input_tokens_details":{"cached_tokens":1920},"output_tokens":300,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":2306}}`)
	})
}

// TestCountTokensResponses: responses keeps the upstream's counting
// endpoint, and its count reaches the client.
func TestCountTokensResponses(t *testing.T) {
	up := responsesUpstream(t)
	gw := testgw.Start(t, testgw.SlotTokens, "thinkgate responses\nreverse_proxy "+up.Addr())
	client := gw.Client()
	res, err := client.Messages.CountTokens(context.Background(), weatherCount())
	if err != nil {
		t.Fatal(err)
	}
	if res.InputTokens != 4321 {
		t.Errorf("input_tokens %d, want the upstream's 4321", res.InputTokens)
	}
	if req := up.Last(t); req.Path != "/v1/responses/input_tokens" {
		t.Errorf("upstream path %s", req.Path)
	}
}

// TestPDFResponses: a base64 PDF reaches the Responses API as an
// input_file; cached input is reported apart.
func TestPDFResponses(t *testing.T) {
	up := responsesUpstream(t)
	gw := testgw.Start(t, testgw.SlotTokens, "thinkgate responses\nreverse_proxy "+up.Addr())
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), pdfMessage("gpt-5"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(up.Last(t).Body)
	const wantInput = `"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Summarise this."},` +
		`{"type":"input_file","filename":"document.pdf","file_data":"data:application/pdf;base64,` + pdfData + `"}]}]`
	if !strings.Contains(body, wantInput) {
		t.Errorf("upstream body %s\nhas no %s", body, wantInput)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "A one-page PDF." ||
		msg.Usage.InputTokens != 86 || msg.Usage.CacheReadInputTokens != 1920 || msg.Usage.OutputTokens != 300 {
		t.Errorf("message %s", msg.RawJSON())
	}
}

func amazonqUpstream(t *testing.T) *testgw.Upstream {
	return testgw.NewUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		w.Write(eventstreamtest.AmazonQEvent("assistantResponseEvent", []byte(`{"content":"A one-page PDF."}`)))
		w.Write(eventstreamtest.AmazonQEvent("metadataEvent", []byte(`{"tokenUsage":{"uncachedInputTokens":86,"outputTokens":300,"cacheReadInputTokens":1920,"cacheWriteInputTokens":64,"totalTokens":2370}}`)))
	})
}

const amazonqSite = "thinkgate amazonq {\n\tapi_key q-token\n}\nreverse_proxy "

// TestCountTokensAmazonQ: count_tokens on amazonq is answered by the
// gateway: the count of the conversationState the same request sends as a
// message, and nothing reaches the upstream.
func TestCountTokensAmazonQ(t *testing.T) {
	up := amazonqUpstream(t)
	gw := testgw.Start(t, testgw.SlotTokens, amazonqSite+up.Addr())
	client := gw.Client()
	params := weatherCount()
	res, err := client.Messages.CountTokens(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(up.Requests()); n != 0 {
		t.Fatalf("the upstream got %d requests", n)
	}
	// The same request as a message, for the body Amazon Q would get.
	_, err = client.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model: params.Model, MaxTokens: 1024, Messages: params.Messages,
		System: []anthropic.TextBlockParam{{Text: params.System.OfString.Value}},
		Tools:  []anthropic.ToolUnionParam{{OfTool: params.Tools[0].OfTool}},
	})
	if err != nil {
		t.Fatal(err)
	}
	sent := up.Last(t).Body
	if want := amazonq.CountConversationTokens(sent); res.InputTokens != int64(want) || want < 101 {
		t.Errorf("input_tokens %d, want %d, the count of the body sent:\n%s", res.InputTokens, want, sent)
	}
}

// TestPDFAmazonQ: Amazon Q takes no documents: a PDF becomes a note in the
// text, and the answer's cache reads and writes reach the client apart
// from input_tokens.
func TestPDFAmazonQ(t *testing.T) {
	up := amazonqUpstream(t)
	gw := testgw.Start(t, testgw.SlotTokens, amazonqSite+up.Addr())
	client := gw.Client()
	msg, err := client.Messages.New(context.Background(), pdfMessage("claude-sonnet-4.5"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(up.Last(t).Body)
	if want := `Summarise this.\n[document (application/pdf) omitted: not supported by Amazon Q]\n`; !strings.Contains(body, want) || strings.Contains(body, pdfData) {
		t.Errorf("upstream body %s\nhas no %s", body, want)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "A one-page PDF." ||
		msg.Usage.InputTokens != 86 || msg.Usage.CacheReadInputTokens != 1920 || msg.Usage.CacheCreationInputTokens != 64 || msg.Usage.OutputTokens != 300 {
		t.Errorf("message %s", msg.RawJSON())
	}
}
