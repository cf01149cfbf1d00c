#!/usr/bin/env bash
# The whole thinkgate test suite, as CI runs it:
#   formatting and vet, every test with the race detector (integration tests
#   through a real in-process Caddy included), the providers built without
#   their AVX2 scanner (-tags purego), the 1,000-stream load test
#   (which the race detector's goroutine limit rules out), and a short run of
#   every fuzz target.
# FUZZTIME (default 10s) sets how long each fuzz target runs. A target that
# fails only by Go 1.26's fuzz-deadline race (no failing input) runs again.
set -euo pipefail
cd "$(dirname "$0")"

echo "== test dependencies"
# The thinkgate_clients tests run a real redis-server; the Claude Code and
# TypeScript SDK tests (integration/claudecode) run Node.js programs that
# they install with npm into the user cache. Both come from Debian's
# packages when missing (root, as in CI).
missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
{ command -v node >/dev/null && command -v npm >/dev/null; } || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
	apt-get update && apt-get install -y "${missing[@]}"
fi
echo "redis-server $(redis-server --version | grep -o 'v=[0-9.]*'), node $(node --version), npm $(npm --version)"

echo "== gofmt"
unformatted=$(gofmt -l $(find . -name '*.go' -not -path './.git/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== generated assembly (internal/jsonbytes/asm) is up to date"
gen=$(mktemp -d); trap 'rm -rf "$gen"' EXIT
mkdir "$gen/asm" && cp internal/jsonbytes/asm/{go.mod,go.sum,*.go} "$gen/asm/"
go run -C "$gen/asm" . -out ../scan_amd64.s -stubs ../scan_stubs_amd64.go -pkg jsonbytes
for f in scan_amd64.s scan_stubs_amd64.go; do
	diff -u "internal/jsonbytes/$f" "$gen/$f" || { echo "run: go generate ./internal/jsonbytes/"; exit 1; }
done

echo "== go vet"
go vet ./...

echo "== go test -race"
go test -race -count=1 -timeout 30m ./...

echo "== portable build (the JSON scanners without AVX2, and the providers on them)"
go test -count=1 -tags purego ./internal/jsonbytes/ ./providers/...

echo "== load test (1,000 concurrent streams)"
go test -count=1 -timeout 10m -run '^TestLoad$' -v ./integration/load | grep -E '^(---|ok|FAIL|PASS)|load_test.go'

echo "== fuzz targets (${FUZZTIME:-10s} each)"
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
	dir=$(dirname "$file")
	for target in $(grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | sed 's/^func //'); do
		echo "-- $dir $target"
		passed=
		for attempt in 1 2 3; do
			if out=$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "${FUZZTIME:-10s}" "$dir" 2>&1); then
				passed=1; break
			fi
			# Go 1.26's fuzz coordinator can fail a target as its time runs
			# out, with a bare "context deadline exceeded" and no failing
			# input (go.dev/issue/75804, fixed in Go 1.27): run it again.
			# Anything else, and a written failing input, fails the suite.
			if ! grep -q 'context deadline exceeded' <<<"$out" || grep -q 'Failing input written' <<<"$out"; then
				break
			fi
			echo "   attempt $attempt ended in Go's fuzz-deadline race (go.dev/issue/75804)"
		done
		if [ -z "$passed" ]; then
			echo "$out"; exit 1
		fi
		echo "$out" | tail -n 3
	done
done
echo "== all tests passed"
