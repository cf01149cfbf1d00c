package recipe_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"

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
// Anthropic's format, each with its route's card; no upstream is asked.
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
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("GET /v1/models: %d %s %s", res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	// Each model as its route's card describes it, decoded by the SDK.
	client := gw.Client()
	page, err := client.Models.List(context.Background(), anthropic.ModelListParams{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range page.Data {
		got = append(got, fmt.Sprintf("%s %q %d/%d effort:%v image:%v", m.ID, m.DisplayName, m.MaxInputTokens, m.MaxTokens,
			m.Capabilities.Effort.Supported, m.Capabilities.ImageInput.Supported))
	}
	want := []string{
		`claude-sonnet-4-5 "GPT-4.1" 1047576/32768 effort:true image:true`,
		`claude-opus-4-5 "GPT-4.1" 1047576/32768 effort:true image:true`,
		`claude-haiku-4-5 "DeepSeek chat" 131072/8192 effort:false image:false`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("models:\n%s\nwant\n%s\n(%s)", strings.Join(got, "\n"), strings.Join(want, "\n"), b)
	}
	for name, u := range ups {
		if n := len(u.Requests()); n != 0 {
			t.Errorf("%s got %d requests", name, n)
		}
	}
}
