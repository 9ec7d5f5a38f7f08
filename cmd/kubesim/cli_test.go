package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/apiserver"
)

// kubesim runs the command with nothing on stdin and returns its exit
// code, stdout and stderr.
func kubesim(args ...string) (int, string, string) {
	return kubesimWithInput("", args...)
}

// Every flag keeps the name and default it had under Go's flag package:
// the labs, the README and scripts written for it run unchanged. The
// lists are what `kubesim COMMAND -h` printed before the commands moved
// to cobra (scenario's flags are the same for run, step and trace).
func TestFlagsKeepTheirNamesAndDefaults(t *testing.T) {
	t.Parallel()
	kubeconfig := os.Getenv("KUBECONFIG") // run-controller's and kubelet's default
	etcd := map[string]string{"etcd-cafile": "", "etcd-certfile": "", "etcd-keyfile": "", "etcd-prefix": "/kubesim", "etcd-servers": ""}
	with := func(m map[string]string, more map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for k, v := range more {
			out[k] = v
		}
		return out
	}
	scenarioFlags := map[string]string{"color": "auto", "full": "false", "lang": "en", "ui": "false", "ui-addr": "127.0.0.1:8080", "v": "false"}
	want := map[string]map[string]string{
		"serve": with(etcd, map[string]string{
			"addr": "127.0.0.1:6443", "anonymous-auth": "false", "api-server-only": "false", "audit-log-path": "", "audit-policy-file": "",
			"authorization-mode": "Node,RBAC", "cni-bin-dir": "", "cni-conf-dir": "", "controllers": "*", "data-dir": ".data", "device-plugins": "false",
			"default-not-ready-toleration-seconds": "300", "default-unreachable-toleration-seconds": "300",
			"kubeconfig": "", "leader-elect": "false", "leader-elect-lease-duration": "15s", "leader-elect-renew-deadline": "10s",
			"leader-elect-retry-period": "2s", "list-memory-budget": "", "local-image": "", "max-mutating-requests-inflight": "200",
			"max-requests-inflight": "400", "memory-limit": "", "node-monitor-grace-period": "40s", "nodes": "3", "scheduler-config": "", "stage-delay": "1s",
			"token-file": "", "ui": "true", "unsafe-no-fsync": "false", "v": "false",
		}),
		"demo":           {"color": "auto", "full": "false", "lang": "en", "step": "false", "ui": "false", "ui-addr": "127.0.0.1:8080"},
		"scenario run":   scenarioFlags,
		"scenario step":  scenarioFlags,
		"scenario trace": scenarioFlags,
		"run-controller": {"kubeconfig": kubeconfig, "namespace": "", "serviceaccount": "", "v": "false"},
		"scheduler":      {"config": "", "kubeconfig": kubeconfig, "v": "false"},
		"device-plugin":  {"count": "4", "kubelet-dir": "", "pre-start-required": "false", "resource": "example.com/gpu"},
		"extender":       {"listen": "127.0.0.1:8888", "prefer-label": "", "refuse-annotation": "", "tls-cert": "", "tls-key": ""},
		"kubelet": {"address": "127.0.0.1", "cert-dir": "", "cni-bin-dir": "", "cni-conf-dir": "", "device-plugins": "false", "kubeconfig": kubeconfig, "node-prefix": "node", "nodes": "1", "port": "0",
			"root-dir": ".kubelet", "server": "", "stage-delay": "1s"},
		"extension-apiserver": {"addr": "127.0.0.1:8443", "data-dir": "", "requestheader-allowed-names": "front-proxy-client",
			"requestheader-client-ca-file": "", "v": "false"},
		"webhook":      {"cert-dir": "", "host": "[]", "port": "9443", "v": "false"},
		"store check":  {"accept-meta-rollback": "false"},
		"store export": with(etcd, map[string]string{"skip-damaged": "false"}),
		"store import": etcd,
		"kubeconfig":   {"data-dir": ".data", "group": "", "out": "", "server": "", "user": ""},
		"audit":        {"code": "0", "log": "", "user": ""},
	}
	root := newRootCommand(strings.NewReader(""), io.Discard, io.Discard)
	for path, flags := range want {
		cmd, _, err := root.Find(strings.Fields(path))
		require.NoError(t, err, path)
		require.Equal(t, "kubesim "+path, cmd.CommandPath())
		got := map[string]string{}
		visit := func(f *pflag.Flag) {
			got[f.Name] = f.DefValue
			assert.NotEmpty(t, f.Usage, "%s --%s has its help text", path, f.Name)
			if len(f.Name) == 1 {
				assert.Equal(t, f.Name, f.Shorthand, "%s: -%s works with one dash, as with Go's flag", path, f.Name)
			}
		}
		cmd.LocalFlags().VisitAll(visit)
		cmd.InheritedFlags().VisitAll(visit)
		delete(got, "help") // cobra's -h, --help
		assert.Equal(t, flags, got, path)
	}
}

// The exit codes are those of the hand-made parser cobra replaced: 2 for
// no command or an unknown one, 1 for a bad flag, a bad subcommand or
// argument, 0 for help. An unknown command gets cobra's message and its
// "Did you mean this?".
func TestExitCodesAndMessagesOfBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args   []string
		code   int
		stderr []string
	}{
		{nil, 2, []string{"Usage:\n  kubesim [flags]\n  kubesim [command]\n", "serve "}},
		{[]string{"nope"}, 2, []string{"Error: unknown command \"nope\" for \"kubesim\"\nRun 'kubesim --help' for usage.\n"}},
		{[]string{"serv"}, 2, []string{"Error: unknown command \"serv\" for \"kubesim\"\n\nDid you mean this?\n\tserve\n\nRun 'kubesim --help' for usage.\n"}},
		{[]string{"scenaro", "run", "x.yaml"}, 2, []string{"Did you mean this?\n\tscenario\n"}},
		{[]string{"--nope"}, 2, []string{"Error: unknown flag: --nope\n", "Usage:\n  kubesim [flags]\n"}},
		{[]string{"serve", "--nope"}, 1, []string{"Error: unknown flag: --nope\n", "Usage:\n  kubesim serve [flags]\n", "--nodes int"}},
		{[]string{"serve", "--nodes", "x"}, 1, []string{`Error: invalid argument "x" for "--nodes" flag`}},
		{[]string{"serve", "extra"}, 1, []string{`Error: unknown command "extra" for "kubesim serve"`}},
		{[]string{"scenario"}, 1, []string{"Error: scenario: expected run, step or trace\n", "Available Commands:\n  run "}},
		{[]string{"scenario", "rn", "x.yaml"}, 1, []string{"Error: unknown command \"rn\" for \"kubesim scenario\"\n\nDid you mean this?\n\trun\n"}},
		{[]string{"store"}, 1, []string{"kubesim: usage: kubesim store check"}},
		{[]string{"store", "chek", "dir"}, 1, []string{"Error: unknown command \"chek\" for \"kubesim store\"\n\nDid you mean this?\n\tcheck\n"}},
		{[]string{"store", "check"}, 1, []string{"kubesim: usage: kubesim store check"}},
		{[]string{"audit", "--code", "forbidden"}, 1, []string{`Error: invalid argument "forbidden" for "--code" flag`}},
		{[]string{"audit"}, 1, []string{"kubesim: audit: --log is required\n"}},
		{[]string{"serve", "--cni-conf-dir", "net.d"}, 1, []string{"kubesim: --cni-conf-dir and --cni-bin-dir go together: give both, or neither for the simulated network\n"}},
		{[]string{"kubelet", "--kubeconfig", "kc", "--cni-bin-dir", "bin"}, 1, []string{"kubesim: kubelet: --cni-conf-dir and --cni-bin-dir go together"}},
		{[]string{"scheduler", "--kubeconfig", "kc", "--config", "no-such-file.yaml"}, 1,
			[]string{"kubesim: reading scheduler configuration: open no-such-file.yaml: no such file or directory\n"}},
		{[]string{"serve", "--scheduler-config", "no-such-file.yaml"}, 1,
			[]string{"kubesim: reading scheduler configuration: open no-such-file.yaml: no such file or directory\n"}},
	} {
		code, out, errOut := kubesim(tc.args...)
		assert.Equal(t, tc.code, code, "%q: %s", tc.args, errOut)
		assert.Empty(t, out, "%q: nothing on stdout", tc.args)
		for _, s := range tc.stderr {
			assert.Contains(t, errOut, s, "%q", tc.args)
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"serve", "-h"}, {"serve", "-help"}, {"help", "serve"}, {"scenario", "help"}, {"store", "--help"}} {
		code, out, errOut := kubesim(args...)
		assert.Equal(t, 0, code, "%q: %s", args, errOut)
		assert.Contains(t, out, "Usage:", "%q: help on stdout", args)
		assert.Empty(t, errOut, "%q", args)
	}
}

// `kubesim help serve` is `kubesim serve --help`: what serve does, its
// usage and every flag with its help text and default.
func TestHelpServe(t *testing.T) {
	t.Parallel()
	code, help, errOut := kubesim("help", "serve")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(help, "Run the API server over HTTPS"), help)
	assert.Contains(t, help, "Usage:\n  kubesim serve [flags]\n\nFlags:\n")
	assert.Regexp(t, `\n      --nodes int +number of fake nodes \(one kubelet each\) \(default 3\)\n`, help)
	assert.Regexp(t, `\n      --stage-delay duration +how long a pod spends in each kubelet stage .* \(default 1s\)\n`, help)
	assert.Regexp(t, `\n  -v, --v\[=true\|false\] +log every request\n`, help)
	_, dashH, _ := kubesim("serve", "-h")
	assert.Equal(t, help, dashH)

	code, top, _ := kubesim("help")
	require.Equal(t, 0, code)
	for _, c := range []string{"serve", "demo", "scenario", "run-controller", "kubelet", "scheduler", "device-plugin", "csi-driver", "extender", "extension-apiserver", "webhook",
		"store", "kubeconfig", "audit", "version", "completion", "help"} {
		assert.Regexp(t, "\n  "+c+" +\\S", top, "kubesim help lists %s", c)
	}
}

// `kubesim version` prints kubesim's version and the Kubernetes version
// its API server speaks: the gitVersion /version answers.
func TestVersion(t *testing.T) {
	t.Parallel()
	code, out, errOut := kubesim("version")
	require.Equal(t, 0, code, errOut)
	v := apiserver.DefaultVersion()
	assert.Regexp(t, `^kubesim version: \S+\n`, out)
	assert.Contains(t, out, "\nKubernetes version: "+v.GitVersion+" (API "+v.Major+"."+v.Minor+", as /version answers)\n")
	code, _, errOut = kubesim("version", "extra")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `unknown command "extra" for "kubesim version"`)
}

// The completion scripts of the four shells, and __complete, which they
// call for the words: the commands, a command's flags, a flag's values,
// run-controller's NAME.
func TestCompletion(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, script, errOut := kubesim("completion", shell)
		require.Equal(t, 0, code, errOut)
		// (assert.True: a failure would print the whole script.)
		assert.True(t, strings.Contains(script, "__kubesim_") && strings.Contains(script, "__complete"), "%s: a script for kubesim that calls __complete", shell)
	}
	_, bash, _ := kubesim("completion", "bash")
	assert.True(t, strings.Contains(bash, " complete -o default -F __start_kubesim kubesim\n"), "bash: the completion function of kubesim")

	complete := func(args ...string) []string {
		code, out, errOut := kubesim(append([]string{"__complete"}, args...)...)
		require.Equal(t, 0, code, errOut)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.NotEmpty(t, lines)
		return lines // the last is the directive, ":4" for no file names
	}
	var names []string
	for _, l := range complete("") {
		names = append(names, strings.Split(l, "\t")[0])
	}
	assert.Equal(t, []string{"audit", "completion", "csi-driver", "demo", "device-plugin", "extender", "extension-apiserver", "help", "kubeconfig", "kubelet",
		"run-controller", "scenario", "scheduler", "serve", "store", "version", "webhook", ":4"}, names)
	assert.Equal(t, []string{"scenario\trun a scenario file as a test, step through it, or print its trace", ":4"}, complete("sce"))
	assert.Equal(t, []string{"check\tcheck a data file (pages, records, values) without changing it", ":4"}, complete("store", "ch"))
	assert.Equal(t, []string{
		"--node-monitor-grace-period\thow long a node's kubelet may be silent before its node is Unknown and tainted unreachable (kube-controller-manager's flag)",
		"--nodes\tnumber of fake nodes (one kubelet each)", ":4"}, complete("serve", "--nod"))
	assert.Equal(t, []string{"en", "zh", ":4"}, complete("scenario", "step", "--lang", ""))
	// Fixed values come whole: the shell keeps those that match.
	assert.Equal(t, []string{"auto", "always", "never", ":4"}, complete("demo", "--color", "al"))
	assert.Contains(t, complete("run-controller", ""), "foo")
	assert.Equal(t, []string{"yaml", "yml", ":8"}, complete("scenario", "run", ""), "scenario files: YAML")
}

// The bash script completes in bash: it runs `kubesim __complete` (this
// test binary as kubesim) and fills COMPREPLY. The test plays bash's part
// as the Tab key would: COMP_WORDS, COMP_CWORD, and the one function the
// script takes from the bash-completion package, _get_comp_words_by_ref
// (here for words without = or :, which is all it is given).
func TestBashCompletesCommandsAndFlags(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	require.NoError(t, err, "bash runs the completion script")
	self, err := os.Executable()
	require.NoError(t, err)
	bin := t.TempDir()
	wrapper := "#!/bin/sh\n" + runAsKubesimEnv + "=1 exec '" + self + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "kubesim"), []byte(wrapper), 0o755))
	_, script, _ := kubesim("completion", "bash")
	require.NoError(t, os.WriteFile(filepath.Join(bin, "kubesim.bash"), []byte(script), 0o644))
	complete := func(line string) string {
		sh := `source "$1"
_get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}
read -r -a COMP_WORDS <<<"$COMP_LINE"
[[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
__start_kubesim
printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", sh, "bash", filepath.Join(bin, "kubesim.bash"), line)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		require.NoError(t, cmd.Run(), errb.String())
		return out.String()
	}
	assert.Equal(t, "serve\n", complete("kubesim ser"))
	assert.Equal(t, "--node-monitor-grace-period\n--nodes\n", complete("kubesim serve --node"))
	assert.Equal(t, "en\nzh\n", complete("kubesim demo --lang "))
	assert.Equal(t, "always\n", complete("kubesim demo --color al"))
	assert.Contains(t, complete("kubesim run-controller "), "foo\n")
}

// Flags go anywhere on the line, before or after the positional
// arguments, as with kubectl; "--" ends the flags.
func TestFlagsAfterPositionalArguments(t *testing.T) {
	t.Parallel()
	code, out, errOut := kubesim("scenario", "run", "testdata/scenarios/small.yaml", "-v", "--color=never")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `\[   \d+\.\d{3}s\]  replicaset\s+default/web`, out, "-v after the file prints the trace")
	code, _, errOut = kubesim("run-controller", "nope", "--kubeconfig", "x")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `unknown controller "nope"`)
	code, _, errOut = kubesim("store", "export", filepath.Join(t.TempDir(), "none"), "snap.jsonl", "--etcd-servers", "http://127.0.0.1:1")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "usage: kubesim store", "with --etcd-servers, export takes FILE alone")
	code, _, errOut = kubesim("scenario", "run", "--", "-v")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "-v: no such file", `after "--", -v is a file`)
}

// A long flag after one dash, as Go's flag package read it, is still
// that flag: scripts written for it keep working.
func TestSingleDashLongFlags(t *testing.T) {
	t.Parallel()
	root := newRootCommand(strings.NewReader(""), io.Discard, io.Discard)
	for _, tc := range []struct{ in, want []string }{
		{[]string{"serve", "-nodes", "2", "-v", "-ui=false", "--addr", "-x"}, []string{"serve", "--nodes", "2", "-v", "--ui=false", "--addr", "-x"}},
		{[]string{"kubeconfig", "--user", "-data-dir", "-data-dir", "d"}, []string{"kubeconfig", "--user", "-data-dir", "--data-dir", "d"}},
		{[]string{"scenario", "step", "-lang", "zh", "a.yaml", "--", "-lang", "-v"}, []string{"scenario", "step", "--lang", "zh", "a.yaml", "--", "-lang", "-v"}},
		{[]string{"scenario", "-lang=zh", "trace", "a.yaml"}, []string{"scenario", "--lang=zh", "trace", "a.yaml"}},
		{[]string{"store", "export", "-etcd-servers", "http://e", "f"}, []string{"store", "export", "--etcd-servers", "http://e", "f"}},
		{[]string{"serve", "-nope"}, []string{"serve", "-nope"}},
		{[]string{"nope", "-nodes", "2"}, []string{"nope", "-nodes", "2"}},
	} {
		assert.Equal(t, tc.want, doubleDashLongFlags(root, tc.in), "%q", tc.in)
	}
	code, _, errOut := kubesim("serve", "-nodes", "x")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `invalid argument "x" for "--nodes" flag`)
	f := writeBilingualScenario(t)
	code, out, errOut := kubesimWithInput("q\n", "scenario", "step", f, "-lang", "zh")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "-- 下一步：第 1/5 步：note: 一个单副本的 ReplicaSet。\n")
}

// run never reads the process's own arguments, whatever it is given.
func TestRunWithNoArgumentsIgnoresOsArgs(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	assert.Equal(t, 2, run(context.Background(), nil, &out, &errb))
	assert.Contains(t, errb.String(), "Usage:\n  kubesim [flags]")
}
