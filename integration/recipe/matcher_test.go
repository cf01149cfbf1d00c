package recipe_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/thinkgate/thinkgate/internal/testgw"
)

// TestRecipe runs the recipe exactly as written, its body matchers
// choosing the route: each kind of Claude Code request reaches the
// upstream its route names, with the model the route gives it (a
// provider,model name's model passes on without its provider), and the
// SDK accumulates every answer.
func TestRecipe(t *testing.T) {
	ups := startUpstreams(t)
	gw := testgw.StartConfig(t, slot, recipe(t, ups, false))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, gw, ups, c)
		})
	}
}

// TestRecipeModels: GET /v1/models, as the SDKs' models.list sends it,
// gets the recipe's advertised models from the gateway itself, in
// Anthropic's format; no upstream is asked.
func TestRecipeModels(t *testing.T) {
	ups := startUpstreams(t)
	gw := testgw.StartConfig(t, slot, recipe(t, ups, false))
	req, _ := http.NewRequest("GET", gw.URL+"/v1/models?limit=20", nil)
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("x-api-key", "client-key")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	entry := func(id string) string {
		return `{"type":"model","id":"` + id + `","display_name":"` + id + `","created_at":"1970-01-01T00:00:00Z"}`
	}
	want := `{"data":[` + entry("claude-sonnet-4-5") + `,` + entry("claude-opus-4-5") + `,` + entry("claude-haiku-4-5") +
		`],"has_more":false,"first_id":"claude-sonnet-4-5","last_id":"claude-haiku-4-5"}`
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" || string(b) != want {
		t.Errorf("GET /v1/models: %d %s %s\nwant %s", res.StatusCode, res.Header.Get("Content-Type"), b, want)
	}
	for name, u := range ups {
		if n := len(u.Requests()); n != 0 {
			t.Errorf("%s got %d requests", name, n)
		}
	}
}
