// Package words checks that the repository speaks to the next reader, who
// has only the repository: no comment, doc, message or test name points at
// an item of the project's tracker or at a work period. A reader cannot
// open those; the words after the number were what they needed. Write what
// the number stood for ("the storage admission plugins", "the Chinese
// edition", "the scale targets in docs/performance.md"), or nothing when
// the sentence stands without it. `go test ./hack/words` (run by
// `make test`) fails on such a line and reports each as path:line: text.
//
// The rule (Names): a number written after the word issue, session or
// round, singular or plural, in any case, as a whole word (or, for issue
// and session, as the capitalized tail of a camel-case name such as a
// test's), with nothing between them but spaces, tabs, an
// underscore, a hyphen or a number sign; or a number sign, a number and
// the word part (a tracker item's part). A number that goes on with a
// comma or a point and more digits is a quantity, not an item: the phrase
// for about a thousand nodes is English and passes. The words alone pass
// (an issue with the watch, the session ends, it issues the token), and
// so does a name that only starts with one (a session ID). A line break
// between the word and its number does not hide it: a line is read with
// the start of the next one, comment marks removed.
//
// An issue of another project is named by its repository, which a reader
// can open (kubernetes/kubernetes#101350), never as the word and a number.
// A plain number after round (no thousands comma, no decimal point) is
// taken for a work period even where round means about: write about.
//
// The files read (Checked): Go and Markdown files, YAML files, Makefiles,
// .ci/run, the web page's assets (ui/assets), and every text file under a
// testdata directory; the list comes from git (tracked files and new ones
// not ignored), or from a walk of the tree when git is not there.
//
// Kubernetes checks its words the same way, over the whole tree in
// make verify: hack/verify-spelling.sh (misspell). This check is of that
// kind, for one mistake spelling cannot see.
//
// Left out: other words for a work period (sprint, milestone, phase,
// iteration: each is ordinary English too often), a part number without
// its item ("part 2"), and other languages' words for them.
package words
