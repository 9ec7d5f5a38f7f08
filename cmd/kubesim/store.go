package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kubesim/kubesim/store/boltstore"
)

// storeCmd is `kubesim store check DATA_DIR`: etcdctl's `check` and bbolt's
// `check` for kubesim's data file, read-only.
func storeCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		return fmt.Errorf("usage: kubesim store check [--accept-meta-rollback] DATA_DIR")
	}
	fs := flag.NewFlagSet("store check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rollback := fs.Bool("accept-meta-rollback", false, "rewrite a damaged newer meta page from the older one, giving up its last commit, so that the file opens again")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("usage: kubesim store check [--accept-meta-rollback] DATA_DIR")
	}
	path := fs.Arg(0)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, boltstore.FileName)
	}
	if *rollback {
		if err := boltstore.AcceptMetaRollback(path); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: meta pages made consistent (the damaged page's commit is given up)\n", path)
	}
	rep, err := boltstore.Check(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: revision %d, %d keys\n", rep.Path, rep.Revision, rep.Keys)
	for _, p := range rep.Problems {
		fmt.Fprintln(stdout, "  problem:", p)
	}
	if !rep.OK() {
		fmt.Fprintf(stdout, "%d problem(s) found\n", len(rep.Problems))
		return errFailed
	}
	fmt.Fprintln(stdout, "no problem found")
	return nil
}
