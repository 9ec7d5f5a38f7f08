package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/apiserver/audit"
)

// newAuditCommand is `kubesim audit --log FILE [--user NAME] [--code N]`:
// it reads the audit log `kubesim serve --audit-log-path` writes and
// prints one line per request — who, which verb, on what, the answer — so
// that a student can read who did what without jq.
func newAuditCommand(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit --log FILE [--user NAME] [--code N]",
		Short: "read serve's audit log: who did what, and the answer",
		Args:  noArgs,
	}
	fs := cmd.Flags()
	path := fs.String("log", "", "the audit log (serve's --audit-log-path) (required)")
	user := fs.String("user", "", "only the requests of this user")
	code := fs.Int("code", 0, "only the requests answered with this HTTP status (403: the refusals)")
	cmd.RunE = func(*cobra.Command, []string) error {
		if *path == "" {
			return errors.New("audit: --log is required")
		}
		f, err := os.Open(*path)
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		defer f.Close()
		tw := tabwriter.NewWriter(stdout, 0, 8, 3, ' ', 0)
		fmt.Fprintln(tw, "USER\tVERB\tURI\tCODE")
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 4<<20)
		for n := 1; sc.Scan(); n++ {
			var ev audit.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				return fmt.Errorf("audit: %s line %d: %w", *path, n, err)
			}
			status := 0
			if ev.ResponseStatus != nil {
				status = int(ev.ResponseStatus.Code)
			}
			if (*user != "" && ev.User.Username != *user) || (*code != 0 && status != *code) {
				continue
			}
			who := ev.User.Username
			if ev.ImpersonatedUser != nil {
				who += " as " + ev.ImpersonatedUser.Username
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", who, ev.Verb, ev.RequestURI, strconv.Itoa(status))
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		return tw.Flush()
	}
	return cmd
}
