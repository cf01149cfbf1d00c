package jsonbytes

// Valid reports whether data is one JSON value. When it says yes,
// json.Valid says yes too; it may say no to a valid document nested deeper
// than encoding/json's limit allows (the caller then asks encoding/json,
// which gives the error). It is json.Valid's grammar with strings, the bulk
// of a request, skipped a vector at a time to their next quote, backslash
// or control byte: like json.Valid it does not check a string's UTF-8.
func Valid(data []byte) bool {
	end := ValidValue(data, SkipSpace(data, 0), 0)
	return end >= 0 && SkipSpace(data, end) == len(data)
}

// ValidValue checks the JSON value at i, found depth containers deep, and
// returns the index just past it, or -1.
func ValidValue(data []byte, i, depth int) int {
	var stackBuf [64]byte
	end, deep := validValue(data, i, depth, stackBuf[:0])
	if deep {
		// Nested past 64 levels (a tool's input can be): again with room
		// for any nesting MaxDepth allows, still on the stack, so that
		// such a value costs no heap however often it is checked. Only
		// this rare call clears the larger array.
		var deepBuf [MaxDepth]byte
		end, _ = validValue(data, i, depth, deepBuf[:0])
	}
	return end
}

// validValue is ValidValue with stack, one byte per open container ('{'
// or '['), never grown: deep reports a value nested past its room.
func validValue(data []byte, i, depth int, stack []byte) (end int, deep bool) {
	for {
		// A value starts at i.
		if i >= len(data) {
			return -1, false
		}
		switch c := data[i]; {
		case c == '{' || c == '[':
			if depth+len(stack) >= MaxDepth {
				return -1, false
			}
			i = SkipSpace(data, i+1)
			if i < len(data) && data[i] == c+2 { // '}' or ']'
				i++
				break
			}
			if len(stack) == cap(stack) {
				return -1, true
			}
			stack = append(stack, c)
			if c == '{' {
				if i = validMemberName(data, i); i < 0 {
					return -1, false
				}
			}
			continue
		case c == '"':
			if i = ValidString(data, i); i < 0 {
				return -1, false
			}
		case c == 't':
			if !HasAt(data, i, "true") {
				return -1, false
			}
			i += 4
		case c == 'f':
			if !HasAt(data, i, "false") {
				return -1, false
			}
			i += 5
		case c == 'n':
			if !HasAt(data, i, "null") {
				return -1, false
			}
			i += 4
		default:
			if i = validNumber(data, i); i < 0 {
				return -1, false
			}
		}
		// A value ended at i: close containers, or go on to the next member.
		for {
			if len(stack) == 0 {
				return i, false
			}
			i = SkipSpace(data, i)
			if i >= len(data) {
				return -1, false
			}
			top := stack[len(stack)-1]
			if data[i] == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if data[i] != ',' {
				return -1, false
			}
			i = SkipSpace(data, i+1)
			if top == '{' {
				if i = validMemberName(data, i); i < 0 {
					return -1, false
				}
			}
			break
		}
	}
}

// MaxDepth is below encoding/json's nesting limit (10000), so that
// what Valid accepts encoding/json accepts.
const MaxDepth = 9000

func HasAt(data []byte, i int, lit string) bool {
	return len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit
}

// validMemberName checks `"name" :` at i and returns the index of the
// value after it, or -1.
func validMemberName(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	if i = ValidString(data, i); i < 0 {
		return -1
	}
	i = SkipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		return -1
	}
	return SkipSpace(data, i+1)
}

// ValidString checks the string whose opening quote is at i and returns
// the index past its closing quote, or -1.
func ValidString(data []byte, i int) int {
	start := i + 1
	for i++; ; {
		if useBlocks(data, i, start) {
			at, end, _ := stringBlocks(data, i, wantEscapes)
			if at < 0 {
				return -1
			}
			if end {
				return at + 1
			}
			i = at
		}
		if i = ShortRun(data, i); i >= len(data) {
			return -1
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(data) {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(data)-i < 6 || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) || !isHex(data[i+5]) {
					return -1
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			i++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// validNumber checks the number at i and returns the index past it, or -1.
func validNumber(data []byte, i int) int {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i >= len(data):
		return -1
	case data[i] == '0':
		i++
	case data[i] >= '1' && data[i] <= '9':
		i = digits(data, i+1)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}
