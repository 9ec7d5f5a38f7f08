package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubesim/kubesim/cmd/kubesim/app"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
	"github.com/kubesim/kubesim/store/snapshot"
)

const storeUsage = `usage: kubesim store check [--accept-meta-rollback] DATA_DIR
       kubesim store export [--skip-damaged] DATA_DIR|--etcd-servers URL[,URL] FILE
       kubesim store import FILE DATA_DIR|--etcd-servers URL[,URL]`

// storeCmd is `kubesim store check|export|import`.
func storeCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(storeUsage)
	}
	switch args[0] {
	case "check":
		return storeCheck(args, stdout, stderr)
	case "export":
		return storeExport(ctx, args[1:], stdout, stderr)
	case "import":
		return storeImport(ctx, args[1:], stdout, stderr)
	}
	return errors.New(storeUsage)
}

// storeCheck is `kubesim store check DATA_DIR`: etcdctl's `check` and
// bbolt's `check` for kubesim's data file, read-only.
func storeCheck(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("store check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rollback := fs.Bool("accept-meta-rollback", false, "rewrite a damaged newer meta page from the older one, giving up its last commit, so that the file opens again")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New(storeUsage)
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
	if rep.LogWrites > 0 {
		fmt.Fprintf(stdout, "%s%s: %d more acknowledged writes, up to revision %d, committed to the file at the next open\n",
			rep.Path, boltstore.WALSuffix, rep.LogWrites, rep.LogRevision)
	}
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

// storeExport is `kubesim store export`: every key of a bbolt data
// directory or of etcd, to a snapshot file (package snapshot). With
// --skip-damaged it exports what can still be read of a damaged data
// directory, and names what it leaves out.
func storeExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var skipDamaged bool
	etcd, pos, err := parseStoreArgs("store export", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&skipDamaged, "skip-damaged", false, "export every key of a damaged data directory that can still be read, "+
			"without opening it as a store, and list the keys and writes left out (`kubesim store check` names the damage)")
	})
	if err != nil {
		return err
	}
	var file string
	switch {
	case etcd.Enabled() && len(pos) == 1:
		file = pos[0]
	case !etcd.Enabled() && len(pos) == 2:
		file = pos[1]
	default:
		return errors.New(storeUsage)
	}
	if skipDamaged {
		if etcd.Enabled() {
			return errors.New("--skip-damaged reads a bbolt data directory, not etcd")
		}
		return salvageExport(pos[0], file, stdout)
	}
	s, where, err := openStoreFor(etcd, pos, false)
	if err != nil {
		return err
	}
	defer s.Close()
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	h, n, err := snapshot.Export(ctx, s, f)
	if err := errors.Join(err, f.Close()); err != nil {
		_ = os.Remove(file)
		return err
	}
	fmt.Fprintf(stdout, "exported %d keys of %s at revision %d to %s\n", n, where, h.Revision, file)
	return nil
}

// salvageExport is `kubesim store export --skip-damaged DATA_DIR FILE`.
func salvageExport(dir, file string, stdout io.Writer) error {
	path := filepath.Join(dir, boltstore.FileName)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no kubesim data file in %s: %w", dir, err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	var sw *snapshot.Writer
	rep, err := boltstore.Salvage(path, func(rev int64) error {
		var err error
		sw, err = snapshot.NewWriter(f, snapshot.Header{Format: snapshot.Format, Revision: rev})
		return err
	}, func(kv store.KeyValue) error {
		return sw.Add(snapshot.Entry{Key: kv.Key, UID: kv.UID, Value: kv.Value})
	})
	if err == nil {
		err = sw.Flush()
	}
	if err := errors.Join(err, f.Close()); err != nil {
		_ = os.Remove(file)
		return err
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(stdout, "  left out:", p)
	}
	fmt.Fprintf(stdout, "exported %d readable keys of %s, as of revision %d, to %s\n", rep.Kept, path, rep.Revision, file)
	if len(rep.Problems) > 0 {
		fmt.Fprintf(stdout, "%d problem(s): what they name is not in %s\n", len(rep.Problems), file)
	}
	return nil
}

// storeImport is `kubesim store import`: a snapshot file into an empty
// bbolt data directory or an empty etcd prefix. The keys get the target's
// own revisions.
func storeImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	etcd, pos, err := parseStoreArgs("store import", args, stderr, nil)
	if err != nil {
		return err
	}
	want := 2 // FILE DATA_DIR
	if etcd.Enabled() {
		want = 1 // FILE
	}
	if len(pos) != want {
		return errors.New(storeUsage)
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	s, where, err := openStoreFor(etcd, pos[1:], true)
	if err != nil {
		return err
	}
	h, n, err := snapshot.Import(ctx, s, f)
	rev := s.Revision()
	if err := errors.Join(err, s.Close()); err != nil {
		return err
	}
	// Import creates: the keys have the target's revisions, not the
	// snapshot's.
	fmt.Fprintf(stdout, "imported %d keys (exported at revision %d) into %s, now at its own revision %d\n", n, h.Revision, where, rev)
	return nil
}

// parseStoreArgs reads the etcd flags, and those extra adds, wherever they
// stand among the positional arguments (`import FILE --etcd-servers URL`
// reads naturally).
func parseStoreArgs(name string, args []string, stderr io.Writer, extra func(*flag.FlagSet)) (app.EtcdOptions, []string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags := addEtcdFlags(fs)
	if extra != nil {
		extra(fs)
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return app.EtcdOptions{}, nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	return flags.options(), pos, nil
}

// openStoreFor opens etcd, or the bbolt file of the data directory
// dirs[0]; create says whether a missing data directory may be made.
func openStoreFor(etcd app.EtcdOptions, dirs []string, create bool) (store.Interface, string, error) {
	if etcd.Enabled() {
		s, err := etcd.Open(nil)
		if err != nil {
			return nil, "", err
		}
		return s, fmt.Sprintf("etcd %s (prefix %s)", strings.Join(etcd.Servers, ","), etcd.Prefix), nil
	}
	dir := dirs[0]
	path := filepath.Join(dir, boltstore.FileName)
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, "", err
		}
	} else if _, err := os.Stat(path); err != nil {
		return nil, "", fmt.Errorf("no kubesim data file in %s: %w", dir, err)
	}
	s, err := boltstore.Open(boltstore.Config{Path: path})
	if err != nil {
		return nil, "", err
	}
	return s, path, nil
}
