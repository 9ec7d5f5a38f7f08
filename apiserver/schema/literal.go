package schema

import (
	"strconv"
	"unicode/utf8"
)

// simpleLiteral reads the raw JSON of an enum value or a default without
// a JSON decoder when it is a plain scalar: a string with no escapes, an
// integer, true or false. Every custom resource create compares its
// fields with the schema's enums and fills its defaults; decoding those
// few bytes again each time was most of the schema's own cost. ok is
// false for anything else (objects, lists, floats, escaped strings,
// invalid JSON), which the caller decodes as before, so the result is
// always what decodeJSON would give.
func simpleLiteral(raw []byte) (v any, ok bool) {
	raw = trimJSONSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	switch c := raw[0]; {
	case c == '"':
		if str, ok := plainString(raw); ok {
			return string(str), true
		}
		return nil, false
	case c == '-' || (c >= '0' && c <= '9'):
		digits := raw
		if c == '-' {
			digits = raw[1:]
		}
		if len(digits) == 0 || (digits[0] == '0' && len(digits) > 1) {
			return nil, false
		}
		for _, b := range digits {
			if b < '0' || b > '9' {
				return nil, false
			}
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return nil, false // out of int64's range: decodeJSON makes it a float
		}
		return n, true
	}
	switch string(raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return nil, false
}

// plainString is the content of a JSON string literal without escapes
// (raw already trimmed), or false.
func plainString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	s := raw[1 : len(raw)-1]
	for _, b := range s {
		if b == '"' || b == '\\' || b < 0x20 {
			return nil, false
		}
	}
	if !utf8.Valid(s) {
		return nil, false
	}
	return s, true
}

// trimJSONSpace drops the whitespace JSON allows around a value (space,
// tab, newline, carriage return) and no other.
func trimJSONSpace(raw []byte) []byte {
	isSpace := func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
	for len(raw) > 0 && isSpace(raw[0]) {
		raw = raw[1:]
	}
	for len(raw) > 0 && isSpace(raw[len(raw)-1]) {
		raw = raw[:len(raw)-1]
	}
	return raw
}
