// Command localimage is the binary local_image_test.go runs as a pod
// (`kubesim serve --local-image`): it shows what the process was given —
// argv, the pod's environment, the in-cluster configuration — and then
// runs until SIGTERM (serving HTTP if --listen=ADDR says where), or
// crashes when its first argument says so.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	fmt.Println("args:", strings.Join(os.Args[1:], " "))
	fmt.Println("POD_NAME:", os.Getenv("POD_NAME"), "GREETING:", os.Getenv("GREETING"))
	fmt.Println("KUBERNETES_SERVICE_HOST set:", os.Getenv("KUBERNETES_SERVICE_HOST") != "")
	fmt.Fprintln(os.Stderr, "whoami:", whoami())
	if len(os.Args) > 1 && os.Args[1] == "crash" {
		fmt.Println("crashing with exit code 3")
		os.Exit(3)
	}
	for _, a := range os.Args[1:] {
		// --listen=ADDR: it serves HTTP there, on the host's network,
		// which the process shares.
		if addr, ok := strings.CutPrefix(a, "--listen="); ok {
			go func() {
				_ = http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					fmt.Fprintln(w, "hello from the process")
				}))
			}()
		}
	}
	// A file per run lets the test find the process and see it stop.
	marks := os.Getenv("MARK_DIR")
	name := filepath.Join(marks, os.Getenv("POD_NAME"))
	_ = os.WriteFile(name+".pid", fmt.Appendf(nil, "%d", os.Getpid()), 0o600)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	tick := time.NewTicker(100 * time.Millisecond)
	for n := 1; ; n++ {
		select {
		case <-sig:
			fmt.Println("got SIGTERM, exiting")
			_ = os.WriteFile(name+".stopped", nil, 0o600)
			return
		case <-tick.C:
			if n <= 3 {
				fmt.Println("tick", n)
			}
		}
	}
}

// whoami asks the API server who the process is (a SelfSubjectReview),
// with the server, CA and token of the kubeconfig the kubelet wrote. The
// kubeconfig is read with string cuts: this binary uses only the standard
// library.
func whoami() string {
	data, err := os.ReadFile(os.Getenv("KUBECONFIG"))
	if err != nil {
		return err.Error()
	}
	field := func(key string) string {
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), key+":"); ok {
				return strings.Trim(strings.TrimSpace(v), `"`)
			}
		}
		return ""
	}
	ca, _ := base64.StdEncoding.DecodeString(field("certificate-authority-data"))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	body := `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`
	req, _ := http.NewRequest("POST", field("server")+"/apis/authentication.k8s.io/v1/selfsubjectreviews", bytes.NewBufferString(body))
	token, err := os.ReadFile(field("tokenFile"))
	if err != nil {
		return err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+string(token))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Status struct {
			UserInfo struct {
				Username string `json:"username"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return resp.Status + ": " + string(b)
	}
	return out.Status.UserInfo.Username
}
