package spdy

import (
	"encoding/binary"
	"strings"
)

// dictionaryWords and dictionaryTail make the SPDY/3 header compression
// dictionary (section 2.6.10.1 of the draft): each word with its 32-bit
// length before it, then the tail as it is. Both ends of a connection
// must use exactly these bytes.
var dictionaryWords = []string{
	"options", "head", "post", "put", "delete", "trace", "accept", "accept-charset", "accept-encoding",
	"accept-language", "accept-ranges", "age", "allow", "authorization", "cache-control", "connection",
	"content-base", "content-encoding", "content-language", "content-length", "content-location",
	"content-md5", "content-range", "content-type", "date", "etag", "expect", "expires", "from", "host",
	"if-match", "if-modified-since", "if-none-match", "if-range", "if-unmodified-since", "last-modified",
	"location", "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization", "range", "referer",
	"retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade", "user-agent", "vary", "via",
	"warning", "www-authenticate", "method", "get", "status", "200 OK", "version", "HTTP/1.1", "url",
	"public", "set-cookie", "keep-alive", "origin",
}

var dictionaryTail = strings.Join([]string{
	"100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505",
	"203 Non-Authoritative Information", "204 No Content", "301 Moved Permanently", "400 Bad Request",
	"401 Unauthorized", "403 Forbidden", "404 Not Found", "500 Internal Server Error", "501 Not Implemented",
	"503 Service Unavailable",
	"Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT",
	"chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,",
	"text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.",
}, "")

// headerDictionary returns the dictionary's bytes.
func headerDictionary() []byte {
	var b []byte
	for _, w := range dictionaryWords {
		b = binary.BigEndian.AppendUint32(b, uint32(len(w)))
		b = append(b, w...)
	}
	return append(b, dictionaryTail...)
}
