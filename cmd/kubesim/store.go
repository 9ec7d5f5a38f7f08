package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/cmd/kubesim/app"
	"github.com/kubesim/kubesim/store"
	"github.com/kubesim/kubesim/store/boltstore"
	"github.com/kubesim/kubesim/store/snapshot"
)

// storeUsage is store's usage, the error of a store command given too
// few or too many arguments.
const storeUsage = `usage: kubesim store check [--accept-meta-rollback] DATA_DIR
       kubesim store export [--skip-damaged] DATA_DIR|--etcd-servers URL[,URL] FILE
       kubesim store import FILE DATA_DIR|--etcd-servers URL[,URL]`

// newStoreCommand is `kubesim store check|export|import`.
func newStoreCommand(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "check a data file, or copy a data dir or etcd to and from a snapshot",
		Long: `Check a data file (pages, records, values) without changing it, snapshot
every key of a data dir or of etcd to a file (JSON lines), or copy a
snapshot into an empty data dir or etcd prefix:

` + storeUsage,
		Args: subcommandRequired,
		// No subcommand: the usage, as an error (exit 1).
		RunE: func(*cobra.Command, []string) error { return errors.New(storeUsage) },
	}
	cmd.AddCommand(newStoreCheckCommand(stdout), newStoreExportCommand(stdout), newStoreImportCommand(stdout))
	return cmd
}

// newStoreCheckCommand is `kubesim store check DATA_DIR`: etcdctl's
// `check` and bbolt's `check` for kubesim's data file, read-only.
func newStoreCheckCommand(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:               "check [--accept-meta-rollback] DATA_DIR",
		Short:             "check a data file (pages, records, values) without changing it",
		ValidArgsFunction: dataDirs,
	}
	fs := cmd.Flags()
	rollback := fs.Bool("accept-meta-rollback", false, "rewrite a damaged newer meta page from the older one, giving up its last commit, so that the file opens again")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return errors.New(storeUsage)
		}
		path := args[0]
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
	return cmd
}

// newStoreExportCommand is `kubesim store export`: every key of a bbolt
// data directory or of etcd, to a snapshot file (package snapshot). With
// --skip-damaged it exports what can still be read of a damaged data
// directory, and names what it leaves out.
func newStoreExportCommand(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export [--skip-damaged] DATA_DIR|--etcd-servers URL[,URL] FILE",
		Short: "snapshot every key of a data dir or of etcd to FILE (JSON lines)",
		Long: `Snapshot every key of a data dir or of etcd to FILE (JSON lines);
--skip-damaged: every key of a damaged data dir that can still be read.`,
	}
	fs := cmd.Flags()
	flags := addEtcdFlags(fs)
	var skipDamaged bool
	fs.BoolVar(&skipDamaged, "skip-damaged", false, "export every key of a damaged data directory that can still be read, "+
		"without opening it as a store, and list the keys and writes left out (`kubesim store check` names the damage)")
	cmd.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx, etcd := cmd.Context(), flags.options()
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
	return cmd
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

// newStoreImportCommand is `kubesim store import`: a snapshot file into
// an empty bbolt data directory or an empty etcd prefix. The keys get the
// target's own revisions.
func newStoreImportCommand(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import FILE DATA_DIR|--etcd-servers URL[,URL]",
		Short: "copy a snapshot into an empty data dir or etcd prefix",
	}
	flags := addEtcdFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx, etcd := cmd.Context(), flags.options()
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
	return cmd
}

// dataDirs has the shells complete a data directory.
func dataDirs(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
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
