package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/containernetworking/cni/pkg/skel"
	types100 "github.com/containernetworking/cni/pkg/types/100"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// captured runs call with os.Stdout going to a pipe and returns what it
// printed: the plugin's result.
func captured(call func() error) ([]byte, error) {
	r, w, err := os.Pipe()
	Expect(err).NotTo(HaveOccurred())
	old := os.Stdout
	os.Stdout = w
	err = call()
	os.Stdout = old
	w.Close()
	out, rerr := io.ReadAll(r)
	Expect(rerr).NotTo(HaveOccurred())
	return out, err
}

var _ = Describe("mock plugin", func() {
	var dataDir string
	var args func(id string) *skel.CmdArgs

	BeforeEach(func() {
		dataDir = GinkgoT().TempDir()
		conf := `{"cniVersion": "1.0.0", "name": "mocknet", "type": "mock", "subnet": "10.22.0.0/16", "dataDir": "` + dataDir + `"}`
		args = func(id string) *skel.CmdArgs {
			return &skel.CmdArgs{ContainerID: id, Netns: "/var/run/netns/" + id, IfName: "eth0",
				Args: "IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web", StdinData: []byte(conf)}
		}
	})

	It("gives each container the next address of the subnet", func() {
		out, err := captured(func() error { return cmdAdd(args("c1")) })
		Expect(err).NotTo(HaveOccurred())
		var res types100.Result
		Expect(json.Unmarshal(out, &res)).To(Succeed())
		Expect(res.IPs).To(HaveLen(1))
		Expect(res.IPs[0].Address.String()).To(Equal("10.22.0.2/16"))
		Expect(res.IPs[0].Gateway.String()).To(Equal("10.22.0.1"))
		Expect(res.Interfaces[0].Sandbox).To(Equal("/var/run/netns/c1"))

		out, err = captured(func() error { return cmdAdd(args("c2")) })
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(out, &res)).To(Succeed())
		Expect(res.IPs[0].Address.String()).To(Equal("10.22.0.3/16"))
	})

	It("passes CHECK while the container has its address and frees it on DEL", func() {
		_, err := captured(func() error { return cmdAdd(args("c1")) })
		Expect(err).NotTo(HaveOccurred())
		Expect(cmdCheck(args("c1"))).To(Succeed())
		Expect(cmdDel(args("c1"))).To(Succeed())
		Expect(filepath.Join(dataDir, "10.22.0.2")).NotTo(BeAnExistingFile())
		Expect(cmdCheck(args("c1"))).To(MatchError(ContainSubstring("no address for the container")))
		// DEL of what is gone succeeds.
		Expect(cmdDel(args("c1"))).To(Succeed())
	})

	It("logs what the runtime passed", func() {
		os.Setenv("CNI_COMMAND", "ADD")
		defer os.Unsetenv("CNI_COMMAND")
		_, err := captured(func() error { return cmdAdd(args("c1")) })
		Expect(err).NotTo(HaveOccurred())
		log, err := os.ReadFile(filepath.Join(dataDir, "calls.log"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(log)).To(Equal("ADD c1 netns=/var/run/netns/c1 ifname=eth0 args=IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web\n"))
	})

	It("refuses a configuration without a subnet", func() {
		a := args("c1")
		a.StdinData = []byte(`{"cniVersion": "1.0.0", "name": "mocknet", "type": "mock"}`)
		Expect(cmdAdd(a)).To(MatchError(ContainSubstring(`subnet ""`)))
	})
})
