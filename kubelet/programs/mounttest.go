package programs

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/kubesim/kubesim/kubelet/shell"
)

// agnhost mounttest (test/images/agnhost/mounttest in kubernetes): what
// the storage conformance specs run to look at a mounted volume. Each flag
// names a path and prints one fact of it, in this order: the filesystem
// type (--fs_type), a new file written with a mode and read back
// (--new_file_0644, _0666, _0660, _0777), the mode, permissions and owner
// (--file_mode, --file_perm, --file_owner), the content (--file_content),
// and the content read every 2 seconds for --retry_time seconds
// (--file_content_in_loop; with --break_on_expected_content, the default,
// it stops once the content is mounttest's own new file's). It exits 1
// when any of them failed. The umask is 0: a new file has exactly its
// mode.

// mounttestContent is what mounttest writes into a new file.
const mounttestContent = "mount-tester new file\n"

// klogFlags are the logging flags agnhost takes before or after any
// subcommand (klog's, on its root command): true for those that take no
// value. They change nothing here.
var klogFlags = map[string]bool{"v": false, "vmodule": false, "logtostderr": true, "alsologtostderr": true, "stderrthreshold": false,
	"log_dir": false, "log_file": false, "log_file_max_size": false, "log_backtrace_at": false, "add_dir_header": true,
	"skip_headers": true, "skip_log_headers": true, "one_output": true}

// agnhostFlags parses a subcommand's flags as cobra (pflag) does:
// --name=value, --name value, a bool flag alone; one dash works too.
// bools names the flags that take no value; every other known flag's
// default is in defaults. klog's flags are taken and left out.
func agnhostFlags(args []string, defaults map[string]string, bools map[string]bool) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range defaults {
		out[k] = v
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			return nil, fmt.Errorf("unknown command %q for \"agnhost\"", a)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		isBool, global := klogFlags[name]
		if _, ok := defaults[name]; !ok && !global {
			return nil, fmt.Errorf("unknown flag: %s", a)
		}
		switch {
		case hasValue:
		case bools[name] || global && isBool:
			value = "true"
		case i+1 < len(args):
			i++
			value = args[i]
		default:
			return nil, fmt.Errorf("flag needs an argument: %s", a)
		}
		if !global {
			out[name] = value
		}
	}
	return out, nil
}

// mounttest runs agnhost mounttest with the flags in args (after the
// subcommand).
func mounttest(ctx context.Context, p shell.Process, args []string) int {
	flags, err := agnhostFlags(args, map[string]string{
		"fs_type": "", "file_mode": "", "file_perm": "", "file_owner": "",
		"new_file_0644": "", "new_file_0666": "", "new_file_0660": "", "new_file_0777": "",
		"file_content": "", "file_content_in_loop": "", "retry_time": "180", "break_on_expected_content": "true",
	}, map[string]bool{"break_on_expected_content": true})
	if err != nil {
		fmt.Fprintf(p.Stderr, "Error: %v\n", err)
		return 1
	}
	if p.FS == nil {
		fmt.Fprintln(p.Stderr, "mounttest: no filesystem to look at")
		return 1
	}
	m := mountTester{p: p}
	if v := flags["fs_type"]; v != "" {
		m.fsType(v)
	}
	for _, f := range []struct {
		flag string
		perm fs.FileMode
	}{{"new_file_0644", 0o644}, {"new_file_0666", 0o666}, {"new_file_0660", 0o660}, {"new_file_0777", 0o777}} {
		if v := flags[f.flag]; v != "" {
			m.newFile(v, f.perm)
		}
	}
	if v := flags["file_mode"]; v != "" {
		m.stat(v, "Stat", func(st shell.FileStat) { fmt.Fprintf(p.Stdout, "mode of file %q: %v\n", v, st.Mode) })
	}
	if v := flags["file_perm"]; v != "" {
		m.stat(v, "Stat", func(st shell.FileStat) { fmt.Fprintf(p.Stdout, "perms of file %q: %v\n", v, st.Mode.Perm()) })
	}
	if v := flags["file_owner"]; v != "" {
		m.stat(v, "stat", func(st shell.FileStat) {
			fmt.Fprintf(p.Stdout, "owner UID of %q: %v\nowner GID of %q: %v\n", v, st.UID, v, st.GID)
		})
	}
	if v := flags["file_content"]; v != "" {
		m.content(v)
	}
	if v := flags["file_content_in_loop"]; v != "" {
		retry, err := strconv.Atoi(flags["retry_time"])
		if err != nil {
			fmt.Fprintf(p.Stderr, "Error: invalid argument %q for \"--retry_time\" flag: %v\n", flags["retry_time"], err)
			return 1
		}
		brk, _ := strconv.ParseBool(flags["break_on_expected_content"])
		if !m.contentInLoop(ctx, v, time.Duration(retry)*time.Second, brk) {
			return 137
		}
	}
	if m.failed {
		return 1
	}
	return 0
}

// mountTester prints what mounttest prints, remembering whether a step
// failed.
type mountTester struct {
	p      shell.Process
	failed bool
}

func (m *mountTester) fsType(path string) {
	magic, err := m.p.FS.Statfs(path)
	switch {
	case err != nil:
		fmt.Fprintf(m.p.Stdout, "error from statfs(%q): %v\n", path, unwrapPathError(err))
		m.failed = true
	case magic == shell.TmpfsMagic:
		fmt.Fprintf(m.p.Stdout, "mount type of %q: tmpfs\n", path)
	default:
		fmt.Fprintf(m.p.Stdout, "mount type of %q: %v\n", path, magic)
	}
}

func (m *mountTester) newFile(path string, perm fs.FileMode) {
	if err := m.p.FS.WriteFile(path, []byte(mounttestContent), perm); err != nil {
		fmt.Fprintf(m.p.Stdout, "error writing new file %q: %v\n", path, err)
		m.failed = true
		return
	}
	m.content(path)
}

func (m *mountTester) stat(path, op string, print func(shell.FileStat)) {
	st, err := m.p.FS.Stat(path)
	if err != nil {
		// os.Stat's error names the path (Stat); syscall.Stat's is
		// the bare errno (stat).
		if op == "stat" {
			err = unwrapPathError(err)
		}
		fmt.Fprintf(m.p.Stdout, "error from %s(%q): %v\n", op, path, err)
		m.failed = true
		return
	}
	print(st)
}

func (m *mountTester) content(path string) {
	data, err := m.p.FS.ReadFile(path)
	if err != nil {
		fmt.Fprintf(m.p.Stdout, "error reading file content for %q: %v\n", path, err)
		m.failed = true
		return
	}
	fmt.Fprintf(m.p.Stdout, "content of file %q: %v\n", path, string(data))
}

// contentInLoop reads path every 2 seconds for retry; false when the
// process was killed first. Only the last read's error counts.
func (m *mountTester) contentInLoop(ctx context.Context, path string, retry time.Duration, breakOnExpected bool) bool {
	var err error
	for start := m.p.Clock.Now(); m.p.Clock.Now().Sub(start) < retry; {
		var data []byte
		data, err = m.p.FS.ReadFile(path)
		switch {
		case err != nil:
			fmt.Fprintf(m.p.Stdout, "Error reading file %s: %v, retrying\n", path, err)
		default:
			fmt.Fprintf(m.p.Stdout, "content of file %q: %v\n", path, string(data))
			if breakOnExpected && string(data) == mounttestContent {
				return true
			}
			if breakOnExpected {
				fmt.Fprintf(m.p.Stdout, "Unexpected content. Expected: %s. Retrying\n", mounttestContent)
			}
		}
		select {
		case <-m.p.Clock.After(2 * time.Second):
		case <-ctx.Done():
			return false
		}
	}
	if err != nil {
		m.failed = true
	}
	return true
}

// unwrapPathError is a *fs.PathError's bare errno, as the syscall
// package's functions return it.
func unwrapPathError(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
