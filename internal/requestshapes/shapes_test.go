package requestshapes

import (
	"encoding/json"
	"testing"
)

// TestShapesAreValidRequests: every shape is a JSON request of about the
// size asked for.
func TestShapesAreValidRequests(t *testing.T) {
	for _, s := range Shapes {
		for _, size := range []int{0, 1 << 20} {
			body := s.Build(size)
			var req struct {
				Messages []json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
				t.Errorf("%s(%d): %v, %d messages", s.Name, size, err, len(req.Messages))
			}
			if size > 0 && (len(body) < size*8/10 || len(body) > size*12/10) {
				t.Errorf("%s(%d): %d bytes", s.Name, size, len(body))
			}
		}
	}
}
