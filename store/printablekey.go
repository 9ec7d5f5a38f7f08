package store

import (
	"fmt"
	"strconv"
)

// maxPrintableKey is the longest key shown whole: longer than any key the
// API server writes (/registry/GROUP/RESOURCE/NAMESPACE/NAME, each part a
// bounded DNS name).
const maxPrintableKey = 1024

// printedKeyPrefix is how much of a damaged or overlong key is shown.
const printedKeyPrefix = 128

// plain says that key reads the same unquoted: printable ASCII with no
// space, quote or backslash, as every key the API server makes.
func plain(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c <= ' ' || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// PrintableKey is key as a message, a log line or a header may carry it. A
// key the API server wrote comes back unchanged. A key read from a damaged
// file can hold any bytes and any length (a damaged length can make it
// swallow the rest of its page): it is quoted with Go's escapes, its first
// 128 bytes only, with its length (any key that is not printable ASCII
// is quoted, so that a space or a look-alike shows), so that a report stays one readable
// line and a Warning header stays small.
func PrintableKey(key string) string {
	if len(key) <= maxPrintableKey && plain(key) {
		return key
	}
	if len(key) <= printedKeyPrefix {
		return strconv.Quote(key)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(key[:printedKeyPrefix]), len(key))
}
