package caddymodule

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/thinkgate/thinkgate/providers"
	"github.com/thinkgate/thinkgate/providers/wire"
)

// checkModelRule checks a model rule: a well-formed pattern, a target, and
// no more '*' in the target than the pattern has to fill them.
func checkModelRule(r providers.ModelRule) error {
	if r.From == "" || r.To == "" {
		return fmt.Errorf("model: needs a pattern and a name")
	}
	if err := providers.CheckModelGlob(r.From); err != nil {
		return fmt.Errorf("model: bad pattern %q: %v", r.From, err)
	}
	if n, have := strings.Count(r.To, "*"), providers.Stars(r.From); n > have {
		return fmt.Errorf("model %s %s: the target has %d '*' but the pattern only %d; each '*' of the target is what the '*' of the same rank in the pattern matched",
			r.From, r.To, n, have)
	}
	return nil
}

// The models list answers GET /v1/models and GET /v1/models/{id} in
// Anthropic's format from the configuration, so that clients that
// discover models (the SDKs' models.list, editors) show what the gateway
// serves rather than what the upstream calls its models.

const (
	defaultModelsLimit = 20
	maxModelsLimit     = 1000
)

// modelsEpoch is every listed model's created_at: the gateway does not know
// when a model was released, and Anthropic's API gives the epoch then.
const modelsEpoch = "1970-01-01T00:00:00Z"

// advertisedModels returns the names the handler lists: advertise_models
// when set, else the client-side names its model rules spell out (a
// pattern without wildcards), in the order written; then the plain names
// of the model cards not listed yet. advertise_models off lists nothing.
func (h *Handler) advertisedModels() []string {
	if h.AdvertiseModels != nil && len(*h.AdvertiseModels) == 0 {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	if h.AdvertiseModels != nil {
		for _, n := range *h.AdvertiseModels {
			add(n)
		}
	} else {
		for _, m := range h.Models {
			if !isPattern(m.From) {
				add(m.From)
			}
		}
	}
	for _, c := range h.ModelInfo {
		if !isPattern(c.Model) {
			add(c.Model)
		}
	}
	return names
}

// isPattern reports a model name that is a glob rather than one name.
func isPattern(name string) bool { return strings.ContainsAny(name, `*?[\`) }

// serveModels answers GET /v1/models and GET /v1/models/{id} when the
// handler has names to list (to a client thinkgate_clients named, those
// its models allow); ok is false for any other request, and when
// there are none, so that the request goes on to the upstream as before.
func (h *Handler) serveModels(w http.ResponseWriter, r *http.Request, named *requestClient) (ok bool, err error) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false, nil
	}
	i := strings.Index(r.URL.Path, "/v1/models")
	if i < 0 {
		return false, nil
	}
	rest := r.URL.Path[i+len("/v1/models"):]
	if rest != "" && rest[0] != '/' {
		return false, nil
	}
	names := h.advertisedModels()
	if len(names) == 0 {
		return false, nil
	}
	if named != nil && len(named.models) > 0 {
		// A named client sees only the models it may use.
		mine := make([]string, 0, len(names))
		for _, n := range names {
			if named.allowsModel(n) {
				mine = append(mine, n)
			}
		}
		names = mine
	}
	if id := strings.TrimPrefix(rest, "/"); id != "" {
		for _, n := range names {
			if n == id {
				b, err := json.Marshal(h.modelInfo(n))
				if err != nil {
					return true, err
				}
				return true, writeJSON(w, r, b)
			}
		}
		return true, writeError(w, &wire.Error{Status: http.StatusNotFound, Type: "not_found_error", Message: "model: " + id})
	}
	page, err := modelsPage(names, r.URL.Query(), h.modelInfo)
	if err != nil {
		return true, writeError(w, wire.InvalidRequest(err.Error()))
	}
	return true, writeJSON(w, r, page)
}

// modelsPage writes one page of the list, as Anthropic pages it: limit
// items after after_id, or the limit items just before before_id, or the
// first limit items.
func modelsPage(names []string, q url.Values, info func(string) any) ([]byte, error) {
	limit := defaultModelsLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxModelsLimit {
			return nil, fmt.Errorf("limit: must be a whole number from 1 to %d, got %q", maxModelsLimit, v)
		}
		limit = n
	}
	after, before := q.Get("after_id"), q.Get("before_id")
	if after != "" && before != "" {
		return nil, fmt.Errorf("after_id and before_id: give one or the other, not both")
	}
	index := func(param, id string) (int, error) {
		for i, n := range names {
			if n == id {
				return i, nil
			}
		}
		return 0, fmt.Errorf("%s: no model %q in the list", param, id)
	}
	from, to := 0, min(limit, len(names))
	switch {
	case after != "":
		i, err := index("after_id", after)
		if err != nil {
			return nil, err
		}
		from, to = i+1, min(i+1+limit, len(names))
	case before != "":
		i, err := index("before_id", before)
		if err != nil {
			return nil, err
		}
		from, to = max(0, i-limit), i
	}
	page := modelList{Data: make([]any, 0, to-from), HasMore: to < len(names)}
	if before != "" {
		page.HasMore = from > 0
	}
	for _, n := range names[from:to] {
		page.Data = append(page.Data, info(n))
	}
	if from < to {
		page.FirstID, page.LastID = &names[from], &names[to-1]
	}
	return json.Marshal(page)
}

// modelList is a page of GET /v1/models; FirstID and LastID are null on
// an empty page.
type modelList struct {
	Data    []any   `json:"data"`
	HasMore bool    `json:"has_more"`
	FirstID *string `json:"first_id"`
	LastID  *string `json:"last_id"`
}

// modelInfo is the list's entry of a model without a card. The display
// name is the id: the configuration names models only by it.
type modelInfo struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
	CreatedAt   string `json:"created_at"`
}

func newModelInfo(name string) modelInfo {
	return modelInfo{Type: "model", ID: name, DisplayName: name, CreatedAt: modelsEpoch}
}

// writeJSON writes a 200 JSON answer (headers only for HEAD).
func writeJSON(w http.ResponseWriter, r *http.Request, body []byte) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(body)
	return err
}

// modelInfo is the list's entry of name: its card's, when it has one,
// else the short entry.
func (h *Handler) modelInfo(name string) any {
	if c := h.cardFor(name); c != nil {
		return newCardInfo(name, c)
	}
	return newModelInfo(name)
}

// cardInfo is the list's entry of a model with a card: Anthropic's
// ModelInfo, every capability present. What a card does not declare is
// not supported: the gateway provides no citations, context management,
// batches, code execution or server tools of its own.
type cardInfo struct {
	Type           string           `json:"type"`
	ID             string           `json:"id"`
	DisplayName    string           `json:"display_name"`
	CreatedAt      string           `json:"created_at"`
	MaxInputTokens int64            `json:"max_input_tokens"`
	MaxTokens      int64            `json:"max_tokens"`
	Capabilities   cardCapabilities `json:"capabilities"`
	Lifecycle      string           `json:"lifecycle"`
	Line           *string          `json:"line"`
	DeprecatedAt   *string          `json:"deprecated_at"`
	RetiresAt      *string          `json:"retires_at"`
}

// support is Anthropic's CapabilitySupport.
type support struct {
	Supported bool `json:"supported"`
}

// cardCapabilities is Anthropic's ModelCapabilities, its members in the
// order the API writes them.
type cardCapabilities struct {
	Batch             support `json:"batch"`
	Citations         support `json:"citations"`
	CodeExecution     support `json:"code_execution"`
	ContextManagement struct {
		ClearThinking20251015 support `json:"clear_thinking_20251015"`
		ClearToolUses20250919 support `json:"clear_tool_uses_20250919"`
		Compact20260112       support `json:"compact_20260112"`
		Supported             bool    `json:"supported"`
	} `json:"context_management"`
	Effort struct {
		High      support `json:"high"`
		Low       support `json:"low"`
		Max       support `json:"max"`
		Medium    support `json:"medium"`
		Supported bool    `json:"supported"`
		Xhigh     support `json:"xhigh"`
	} `json:"effort"`
	ImageInput  support `json:"image_input"`
	PDFInput    support `json:"pdf_input"`
	ServerTools struct {
		CodeExecution support `json:"code_execution"`
		Supported     bool    `json:"supported"`
		WebSearch     support `json:"web_search"`
	} `json:"server_tools"`
	StructuredOutputs support `json:"structured_outputs"`
	Thinking          struct {
		Supported bool `json:"supported"`
		Types     struct {
			Adaptive     support `json:"adaptive"`
			BetweenTools support `json:"between_tools"`
			Disabled     support `json:"disabled"`
			Enabled      support `json:"enabled"`
		} `json:"types"`
	} `json:"thinking"`
}

func newCardInfo(name string, c *ModelCard) cardInfo {
	info := cardInfo{Type: "model", ID: name, DisplayName: c.DisplayName, CreatedAt: c.CreatedAt,
		MaxInputTokens: c.MaxInputTokens, MaxTokens: c.MaxTokens, Lifecycle: "active"}
	if info.DisplayName == "" {
		info.DisplayName = name
	}
	if info.CreatedAt == "" {
		info.CreatedAt = modelsEpoch
	}
	caps := &info.Capabilities
	e := &caps.Effort
	e.Low.Supported, e.Medium.Supported, e.High.Supported = has(c.Effort, "low"), has(c.Effort, "medium"), has(c.Effort, "high")
	e.Xhigh.Supported, e.Max.Supported = has(c.Effort, "xhigh"), has(c.Effort, "max")
	e.Supported = len(c.Effort) > 0
	caps.ImageInput.Supported = has(c.Input, "image")
	caps.PDFInput.Supported = has(c.Input, "pdf")
	caps.StructuredOutputs.Supported = c.StructuredOutputs
	t := &caps.Thinking
	t.Types.Enabled.Supported, t.Types.Adaptive.Supported = has(c.Thinking, "enabled"), has(c.Thinking, "adaptive")
	t.Types.Disabled.Supported = true // the gateway can always send a request without thinking
	t.Supported = len(c.Thinking) > 0
	return info
}
