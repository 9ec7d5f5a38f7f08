package main

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// runAsKubesimEnv makes the test binary behave as the kubesim command, so
// that a test can run a kubesim command as a real child process.
const runAsKubesimEnv = "KUBESIM_TEST_RUN_AS_KUBESIM"

func TestMain(m *testing.M) {
	if os.Getenv(runAsKubesimEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func TestRunControllerArguments(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no name", []string{"run-controller"}, "a controller NAME is required"},
		{"flag first", []string{"run-controller", "--kubeconfig", "x"}, "a controller NAME is required"},
		{"unknown", []string{"run-controller", "nope", "--kubeconfig", "x"}, `unknown controller "nope"`},
		{"extra args", []string{"run-controller", "nope", "--kubeconfig", "x", "more"}, `unexpected arguments ["more"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			assert.Equal(t, 1, code)
			assert.Contains(t, errb.String(), tc.want)
		})
	}
}
