package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(runWithInput(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process and with nothing on stdin: tests call
// it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWithInput(ctx, args, strings.NewReader(""), stdout, stderr)
}

// runWithInput is main without the process; stdin feeds the interactive
// commands (scenario step, demo --step). It returns the exit code: 0, 1
// when a command fails or is given a bad flag or argument, 2 for no
// command, an unknown one, or a bad flag before any (as before kubesim's
// commands moved to cobra).
func runWithInput(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCommand(stdin, stdout, stderr)
	// A nil slice would make cobra read os.Args: a test's arguments.
	root.SetArgs(append([]string{}, doubleDashLongFlags(root, args)...))
	cmd, err := root.ExecuteContextC(ctx)
	var usage *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errFailed):
		return 1 // the command printed why
	case errors.As(err, &usage):
		if usage.err != nil {
			fmt.Fprintln(stderr, "Error:", usage.err)
		}
		fmt.Fprint(stderr, usage.cmd.UsageString())
		return usage.code
	case cmd == root:
		// The only error cobra returns for the root itself is an
		// unknown command (with its "Did you mean this?"), found before
		// any command runs: printed as cobra prints it.
		fmt.Fprintln(stderr, "Error:", err)
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", root.CommandPath())
		return 2
	}
	fmt.Fprintln(stderr, "kubesim:", err)
	return 1
}

// newRootCommand is the kubesim command and its subcommands, writing to
// stdout and stderr and reading stdin; cobra adds help, completion and
// the hidden __complete that the completion scripts call.
func newRootCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubesim",
		Short: "kubesim — a Kubernetes control plane small enough to read",
		Long: `kubesim — a Kubernetes control plane small enough to read.

It plays kube-apiserver, kube-controller-manager, kube-scheduler and the
kubelets in one process (serve), tells the control loop's story step by
step (demo, scenario), and runs a controller, kubelets, an extension API
server or a webhook as processes of their own.`,
		// Errors are printed by runWithInput, which knows a usage error
		// (printed with the usage) from a command's failure.
		SilenceErrors: true,
		SilenceUsage:  true,
		// kubesim alone prints the usage and exits 2.
		RunE: func(cmd *cobra.Command, _ []string) error {
			return &usageError{cmd: cmd, code: 2}
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// A bad flag or flag value is a usage error: exit 1 with the usage,
	// 2 before any command (`kubesim --nope` names no command).
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		code := 1
		if !cmd.HasParent() {
			code = 2
		}
		return &usageError{cmd: cmd, err: err, code: code}
	})
	root.AddCommand(
		newServeCommand(stdout, stderr),
		newDemoCommand(stdin, stdout),
		newScenarioCommand(stdin, stdout),
		newRunControllerCommand(stdout, stderr),
		newKubeletCommand(stdout, stderr),
		newSchedulerCommand(stdout, stderr),
		newDevicePluginCommand(stdout, stderr),
		newCSIDriverCommand(stdout, stderr),
		newExtenderCommand(stdout, stderr),
		newExtensionAPIServerCommand(stdout, stderr),
		newWebhookCommand(stdout, stderr),
		newStoreCommand(stdout),
		newKubeconfigCommand(stdout, stderr),
		newAuditCommand(stdout),
		newVersionCommand(stdout),
	)
	return root
}

// registerFlagValues has the shells complete the flag name with values.
func registerFlagValues(cmd *cobra.Command, name string, values ...string) {
	err := cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
	if err != nil {
		panic(err) // a flag name misspelt here: every completion test fails
	}
}

// usageError is a command line kubesim cannot run: a bad flag, an
// unknown subcommand, no command at all. err (if any) is printed, then
// the command's usage, and the process exits with code.
type usageError struct {
	cmd  *cobra.Command
	err  error
	code int
}

func (e *usageError) Error() string {
	if e.err == nil {
		return "usage"
	}
	return e.err.Error()
}

func (e *usageError) Unwrap() error { return e.err }

// noArgs is cobra.NoArgs as a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if err := cobra.NoArgs(cmd, args); err != nil {
		return &usageError{cmd: cmd, err: err, code: 1}
	}
	return nil
}

// subcommandRequired is the Args of a command that only groups others
// (scenario, store): an argument that names none of them is an unknown
// command, with cobra's message and suggestions, as the root gives one;
// "help" prints the command's help, as `kubesim help scenario` does.
// Without an argument the command's own RunE says what is missing.
func subcommandRequired(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if len(args) == 1 && args[0] == "help" {
		return pflag.ErrHelp
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's own default
	}
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
	}
	return &usageError{cmd: cmd, err: errors.New(msg), code: 1}
}

// doubleDashLongFlags rewrites "-name" and "-name=value" to "--name" and
// "--name=value" where name is a long flag of the command args run.
// kubesim's flags were once parsed by Go's flag package, which takes a
// long flag after one dash as well as after two: a script written then
// (`kubesim serve -nodes 2`) keeps working, although pflag, as kubectl,
// would read "-nodes" as the shorthands n, o, d, e and s. Single letters
// (-v, -h) are pflag's shorthands already and stay; a flag's value and
// everything after "--" are left alone.
func doubleDashLongFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil {
		return args
	}
	cmd.InitDefaultHelpFlag() // -help too, as the flag package took it
	// The flags the command knows: its own, its persistent ones and
	// those its parents pass down.
	flags := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	flags.AddFlagSet(cmd.Flags())
	flags.AddFlagSet(cmd.PersistentFlags())
	flags.AddFlagSet(cmd.InheritedFlags())
	out := make([]string, len(args))
	copy(out, args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			continue
		}
		long := strings.HasPrefix(a, "--")
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		var f *pflag.Flag
		if long || len(name) > 1 {
			f = flags.Lookup(name)
			if f != nil && !long {
				out[i] = "-" + a
			}
		} else {
			f = flags.ShorthandLookup(name)
		}
		if f != nil && !hasValue && f.NoOptDefVal == "" {
			i++ // the next argument is this flag's value
		}
	}
	return out
}
