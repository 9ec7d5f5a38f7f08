// Package doclinks checks the documentation's relative links: every link
// of docs/*.md, docs/labs/*.md and docs/labs/zh/*.md (the labs in Chinese)
// that is not a URL must name a file or directory that exists, so that a
// move or a rename cannot leave the docs pointing at nothing
// (`go test ./hack/doclinks`, part of `make test`).
//
// Left out: anchors (#section) are not checked against headings, and
// links to the web are not fetched.
package doclinks
