package vertex_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thinkgate/thinkgate/internal/googletest"
	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestTokenNotLogged: with every log at DEBUG (thinkgate's converted
// request with its headers, reverse_proxy's round trip), the access token
// appears in none of them.
func TestTokenNotLogged(t *testing.T) {
	ts := googletest.NewTokenServer(t)
	up := mockVertex(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/publishers/google/") {
			testgw.WriteChunks(w, "text/event-stream", geminiStream, 64)
			return
		}
		jsonAnswer(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Hi."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`)(w, r)
	})
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	p := testgw.PortsFor(slot)
	preamble := strings.Replace(testgw.Preamble(p), "level ERROR", "output file "+logFile+"\n\t\tlevel DEBUG", 1)
	cfg := preamble + fmt.Sprintf("\nhttp://localhost:%d {\n\tlog\n%s\n}\n", p.HTTP, vertexSite(ts.WriteKeyFile(t), "", up))
	gw := testgw.StartConfig(t, slot, cfg)

	gw.Stream(userParams("gemini-2.5-flash", "q"))
	client := gw.Client()
	if _, err := client.Messages.New(context.Background(), userParams("claude-sonnet-4-5", "q")); err != nil {
		t.Fatal(err)
	}
	if got := up.Last(t).Header.Get("Authorization"); got != "Bearer "+googletest.Token(1) {
		t.Fatalf("Vertex got Authorization %q", got)
	}
	logs, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logs), `"converted request"`) || !strings.Contains(string(logs), `"upstream roundtrip"`) {
		t.Fatalf("the debug log lacks the lines that show headers:\n%s", logs)
	}
	if strings.Contains(string(logs), googletest.Token(1)) {
		t.Errorf("the access token is in the log")
	}
}
