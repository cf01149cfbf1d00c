package providertest

import "strings"

// fuzzStrings are string bodies with every kind of escape, raw bytes the
// escaper rewrites, and the empty string.
var fuzzStrings = []string{
	``, `plain`, `a\/b`, `\u00e9t\u00E9`, `\ud83d\ude42`, `\ud800 lone`, "raw \xff\xfe", "sep \u2028",
	`esc \u2028`, `<b> & </b>`, `q \"x\" \\ n\n t\t`, `\u001b[0m \u001B`, `\u000a\u0008\b\f`, "日本語 é",
	`\u0022quoted\u0022`, `tool_1`, `x`, `base64`, `url`, `text`, `image/png`, `iVBO\/Rw==`,
}

// BuiltRequest builds a request that ParseRequest accepts, its shape and
// strings chosen by the bytes of data: for the differential fuzz targets
// of the request converters, whose mutated bodies are rarely JSON.
func BuiltRequest(data []byte) []byte {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		c := data[0]
		data = data[1:]
		return c
	}
	str := func() string { return `"` + fuzzStrings[int(next())%len(fuzzStrings)] + `"` }
	types := []string{"text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image", "document", "search_result", "t\u0065xt"}
	source := func() string {
		switch next() % 5 {
		case 0:
			return `{"type":"base64","media_type":` + str() + `,"data":` + str() + `}`
		case 1:
			return `{"url":` + str() + `,"type":"url","url":null,"x":[1]}`
		case 2:
			return `{"type":"text","data":` + str() + `,"media_type":null}`
		case 3:
			return str()
		}
		return `{"type":` + str() + `}`
	}
	var block func(depth int) string
	content := func(depth int) string {
		switch n := int(next() % 4); n {
		case 0:
			return str()
		default:
			blocks := make([]string, n)
			for k := range blocks {
				blocks[k] = block(depth)
			}
			return "[" + strings.Join(blocks, ",") + "]"
		}
	}
	block = func(depth int) string {
		var members []string
		n := int(next() % 6)
		members = append(members, `"type":"`+types[int(next())%len(types)]+`"`)
		for k := 0; k < n; k++ {
			switch next() % 14 {
			case 0:
				members = append(members, `"text":`+str())
			case 1:
				members = append(members, `"thinking":`+str(), `"signature":"sig"`)
			case 2:
				members = append(members, `"id":`+str(), `"name":`+str())
			case 3:
				members = append(members, `"input":{ "a" : [1, `+str()+`] }`)
			case 4:
				members = append(members, `"tool_use_id":`+str(), `"is_error":`+[]string{"true", "false"}[next()%2])
			case 5:
				if depth == 0 {
					members = append(members, `"content":`+content(depth+1))
				}
			case 6:
				members = append(members, `"source":`+source())
			case 7:
				members = append(members, `"cache_control":{"type":"ephemeral"}`)
			case 8:
				members = append(members, `"data":`+str())
			// What encoding/json reads by rules of its own: a name
			// escaped or in another case, a null, a member repeated.
			case 9:
				members = append(members, `"\u0074ext":`+str())
			case 10:
				members = append(members, `"Text":`+str(), `"TEXT":null`)
			case 11:
				members = append(members, `"Type":"tool_use"`, `"Input":{"b":[]}`, `"is_error":null`)
			case 12:
				members = append(members, `"content":null`, `"source":null`, `"input":null`)
			case 13:
				members = append(members, `"Source":`+source(), `"Tool_Use_ID":`+str())
			}
		}
		// Members in any order, the type last as often as first.
		if next()%2 == 0 {
			members = append(members[1:], members[0])
		}
		seen := map[string]bool{}
		var kept []string
		for _, m := range members {
			name := m[:strings.IndexByte(m[1:], '"')+2]
			if !seen[name] {
				seen[name] = true
				kept = append(kept, m)
			}
		}
		return "{" + strings.Join(kept, ",") + "}"
	}
	var msgs []string
	for n := int(next() % 6); n > 0; n-- {
		role := []string{"user", "assistant", "system"}[next()%3]
		c := content(0)
		switch next() % 4 {
		case 0:
			msgs = append(msgs, `{"role":"`+role+`","content":`+c+`}`)
		case 1:
			msgs = append(msgs, `{"Role":"user","\u0072ole":"`+role+`","CONTENT":`+c+`}`)
		case 2:
			msgs = append(msgs, `{"role":"`+role+`","content":`+c+`,"content":null}`)
		default:
			msgs = append(msgs, `{"content":`+c+`,"x":null,"role":"`+role+`"}`)
		}
	}
	body := `{"model":"claude-x","max_tokens":7,"messages":[` + strings.Join(msgs, ",") + `]`
	switch next() % 4 {
	case 0:
		body += `,"system":` + str()
	case 1:
		body += `,"system":[{"type":"text","text":` + str() + `},{"type":"text","text":` + str() + `}]`
	}
	switch next() % 3 {
	case 0:
		body += `,"thinking":{"type":"disabled"}`
	case 1:
		body += `,"thinking":{"type":"enabled","budget_tokens":2048}`
	}
	if next()%2 == 0 {
		body += `,"tools":[{"name":` + str() + `,"input_schema":{"type":"object"}}],"tool_choice":{"type":"any"}`
	}
	return []byte(body + "}")
}
