package jsonbytes

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// Encode encodes v exactly as a json.Encoder with HTML escaping off
// writes it (without the newline), but bounds the encoder's own buffer:
// encoding/json writes a whole value into a buffer it grows by doubling and
// then copies out, so a 30 MB request body costs three times that on its
// way out. Here the structs are walked and every array written element by
// element, so the encoder's buffer holds one element at a time and the
// result is written once, into out grown from sizeHint.
//
// Only what is plainly encoded is walked: structs without embedded fields
// or ",string" options, reached directly or through pointers, and slices
// (not []byte). Anything else, json.Marshaler implementations among it, is
// handed to the encoder whole.
func Encode(v any, sizeHint int) ([]byte, error) {
	w := &appendWriter{buf: make([]byte, 0, sizeHint)}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := encodeValue(w, enc, reflect.ValueOf(v)); err != nil {
		return nil, err
	}
	return w.buf, nil
}

// AppendEncode is Encode appending to dst: a converter writes the fields
// it encodes into the body it has written so far, without a buffer of
// their own grown and copied.
func AppendEncode(dst []byte, v any) ([]byte, error) {
	w := &appendWriter{buf: dst}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := encodeValue(w, enc, reflect.ValueOf(v)); err != nil {
		return nil, err
	}
	return w.buf, nil
}

// appendWriter collects the encoder's writes, each one value followed by a
// newline, which is dropped.
type appendWriter struct{ buf []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	n := len(p)
	if n > 0 && p[n-1] == '\n' {
		p = p[:n-1]
	}
	w.buf = append(w.buf, p...)
	return n, nil
}

var (
	numberType        = reflect.TypeFor[json.Number]()
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// AppendStringNoHTML appends s quoted as json.Encoder writes a string
// with HTML escaping off: quotes, backslashes and control characters
// escaped, U+2028 and U+2029 as \u2028 and \u2029, each byte of invalid
// UTF-8 as \ufffd, everything else as it is.
func AppendStringNoHTML(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = AppendStringBodyNoHTML(dst, bytesOf(s))
	return append(dst, '"')
}

// AppendStringBodyNoHTML is AppendStringNoHTML without the quotes.
func AppendStringBodyNoHTML(dst, b []byte) []byte {
	dst, _ = appendEscaped(dst, b, plainEscapes)
	return dst
}

func encodeValue(w *appendWriter, enc *json.Encoder, v reflect.Value) error {
	if !v.IsValid() {
		w.buf = append(w.buf, "null"...)
		return nil
	}
	t := v.Type()
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
		return encodeWhole(enc, v)
	}
	switch t.Kind() {
	case reflect.String:
		if t == numberType || t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
			return encodeWhole(enc, v)
		}
		// The bulk of a converted request is its text: written here, a
		// run of plain text at a time, rather than through the encoder.
		w.buf = AppendStringNoHTML(w.buf, v.String())
		return nil
	case reflect.Pointer:
		if v.IsNil() {
			w.buf = append(w.buf, "null"...)
			return nil
		}
		return encodeValue(w, enc, v.Elem())
	case reflect.Interface:
		// A converter's content that is a string or a list of parts: its
		// text is the bulk of the request, so the walk goes on into it,
		// as encoding/json does (the value inside is not addressable).
		if v.IsNil() {
			w.buf = append(w.buf, "null"...)
			return nil
		}
		return encodeValue(w, enc, v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			w.buf = append(w.buf, "null"...)
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return encodeWhole(enc, v)
		}
		w.buf = append(w.buf, '[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			if err := encodeValue(w, enc, v.Index(i)); err != nil {
				return err
			}
		}
		w.buf = append(w.buf, ']')
		return nil
	case reflect.Struct:
		fields, ok := plainFields(t)
		if !ok {
			return encodeWhole(enc, v)
		}
		w.buf = append(w.buf, '{')
		first := true
		for _, f := range fields {
			fv := v.Field(f.index)
			if f.omitEmpty && isEmptyValue(fv) {
				continue
			}
			if !first {
				w.buf = append(w.buf, ',')
			}
			first = false
			w.buf = append(w.buf, f.key...)
			if err := encodeValue(w, enc, fv); err != nil {
				return err
			}
		}
		w.buf = append(w.buf, '}')
		return nil
	}
	return encodeWhole(enc, v)
}

// encodeWhole hands v to the encoder. An addressable value goes by pointer,
// which encodes the same but keeps it addressable, as encoding/json sees it
// inside a value reached through a pointer: pointer-receiver MarshalJSON
// methods then apply.
func encodeWhole(enc *json.Encoder, v reflect.Value) error {
	if v.CanAddr() {
		return enc.Encode(v.Addr().Interface())
	}
	return enc.Encode(v.Interface())
}

// plainField is one encoded field of a struct: its index, its encoded
// name with the colon, and whether it is left out when empty.
type plainField struct {
	index     int
	key       []byte
	omitEmpty bool
}

var plainFieldsCache sync.Map // reflect.Type → []plainField, or nil if not plain

// plainFields returns the encoded fields of t in order, or ok false when t
// has anything whose encoding this walk does not reproduce.
func plainFields(t reflect.Type) (_ []plainField, ok bool) {
	if c, found := plainFieldsCache.Load(t); found {
		f := c.([]plainField)
		return f, f != nil
	}
	var fields []plainField
	seen := map[string]bool{}
	plain := true
	for i := 0; i < t.NumField() && plain; i++ {
		sf := t.Field(i)
		if sf.Anonymous {
			plain = false
			break
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts != "" && opts != "omitempty" {
			plain = false // ",string", ",omitzero" and the like
			break
		}
		if name == "" || !validTagName(name) {
			if name != "" {
				plain = false
				break
			}
			name = sf.Name
		}
		if seen[name] {
			plain = false // encoding/json's rules for clashing names apply
			break
		}
		seen[name] = true
		key, err := json.Marshal(name)
		if err != nil {
			plain = false
			break
		}
		fields = append(fields, plainField{index: i, key: append(key, ':'), omitEmpty: opts == "omitempty"})
	}
	if !plain {
		fields = nil
	} else if fields == nil {
		fields = []plainField{}
	}
	plainFieldsCache.Store(t, fields)
	return fields, plain
}

// validTagName accepts the names this walk writes as they are: letters,
// digits, '_', '-', '$' and '.'.
func validTagName(s string) bool {
	for _, c := range s {
		if !(c == '_' || c == '-' || c == '$' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// isEmptyValue is encoding/json's omitempty test.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
