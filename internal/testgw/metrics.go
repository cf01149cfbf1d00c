package testgw

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Metric scrapes the site's /metrics for the first sample of name whose
// labels include labels; 0 if there is none. The site's metrics handler
// serves the registry of the config in force (the admin endpoint keeps the
// one of the config it started with).
func (g *Gateway) Metric(t testing.TB, name string, labels map[string]string) float64 {
	t.Helper()
	res, err := http.Get(g.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		ok := true
		for k, v := range labels {
			if !strings.Contains(line, fmt.Sprintf(`%s=%q`, k, v)) {
				ok = false
			}
		}
		if ok {
			f, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	return 0
}

// ReadFile returns the file at path (a log the gateway writes).
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
