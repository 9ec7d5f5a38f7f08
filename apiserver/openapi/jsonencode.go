package openapi

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// encodeJSON writes doc as encoding/json does, map keys in order, except
// that <, > and & stay as they are: descriptions are full of them; keep
// them readable.
//
// The documents are generic JSON (maps, slices, strings, booleans,
// json.Numbers) of megabytes, the built-in kinds' schemas with every
// field's description. appendJSON walks them with a type switch where
// encoding/json goes by reflection, several times faster, for the same
// bytes (TestAppendJSONIsEncodingJSON); any other value is left to
// encoding/json.
func encodeJSON(doc any) ([]byte, error) {
	return appendJSON(make([]byte, 0, 4096), doc)
}

func appendJSON(dst []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return appendJSONString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(appendJSONString(dst, k), ':')
			if dst, err = appendJSON(dst, x[k]); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case []any:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendJSON(dst, e); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	// Numbers (json.Number checks its literal) and anything else.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(dst, bytes.TrimRight(buf.Bytes(), "\n")...), nil
}

// appendJSONString quotes s as encoding/json does without HTML escaping:
// quote, backslash and control characters escaped (\b, \f, \n, \r, \t by
// name), invalid UTF-8 as U+FFFD, and U+2028 and U+2029 escaped, as
// JavaScript reads them as line ends.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0 // s[start:i] is still to be copied as it is
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}
