package metricsserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"

	"github.com/kubesim/kubesim/client"
)

// KubeletPort is where a node's kubelet serves its API.
const KubeletPort = 10250

// nodePoint is the latest usage of a node.
type nodePoint struct {
	timestamp time.Time
	usage     corev1.ResourceList
}

// podPoint is the latest usage of a pod's containers.
type podPoint struct {
	timestamp  time.Time
	containers []metricsv1beta1.ContainerMetrics
}

// points are the results of one scrape of every node.
type points struct {
	nodes map[string]nodePoint
	pods  map[string]podPoint // by namespace/name
}

// fresh returns the points, scraping first when the last scrape is older
// than the resolution on the server's clock. Concurrent requests wait
// for one scrape.
func (s *Server) fresh(ctx context.Context) points {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Clock.Now()
	if s.scraped.IsZero() || now.Sub(s.scraped) >= s.opts.Resolution {
		s.points = s.scrape(ctx)
		s.scraped = now
	}
	return s.points
}

// scrape asks every node's kubelet for its summary. A node that does not
// answer has no metrics until it does (metrics-server logs "Failed to
// scrape node" and leaves it out).
func (s *Server) scrape(ctx context.Context) points {
	out := points{nodes: map[string]nodePoint{}, pods: map[string]podPoint{}}
	nodes, err := s.opts.Client.Nodes().List(ctx, "", client.ListOptions{})
	if err != nil {
		s.opts.Logger.Error("listing nodes", "err", err)
		return out
	}
	for i := range nodes.Items {
		n := nodes.Items[i]
		sum, err := s.scrapeNode(ctx, n)
		if err != nil {
			s.opts.Logger.Info("Failed to scrape node", "node", n.Name, "err", err)
			continue
		}
		if p, ok := nodeUsage(sum.Node); ok {
			out.nodes[n.Name] = p
		}
		for _, ps := range sum.Pods {
			if p, ok := podUsage(ps); ok {
				out.pods[ps.PodRef.Namespace+"/"+ps.PodRef.Name] = p
			}
		}
	}
	return out
}

// nodeAddress is the address the metrics server dials: the node's
// InternalIP (--kubelet-preferred-address-types puts it first), or its
// name.
func nodeAddress(n *corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return n.Name
}

// scrapeNode is GET https://ADDRESS:10250/stats/summary.
func (s *Server) scrapeNode(ctx context.Context, n *corev1.Node) (*summary, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.ScrapeTimeout)
	defer cancel()
	url := "https://" + net.JoinHostPort(nodeAddress(n), strconv.Itoa(KubeletPort)) + "/stats/summary?only_cpu_and_memory=true"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.opts.Kubelet.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("request failed, status: %q", resp.Status)
	}
	var sum summary
	if err := json.Unmarshal(body, &sum); err != nil {
		return nil, err
	}
	return &sum, nil
}

// cpuQuantity is nanocores as a quantity ("250m" when it is exact).
func cpuQuantity(nanos uint64) resource.Quantity {
	return *resource.NewScaledQuantity(int64(nanos), -9)
}

func memoryQuantity(bytes uint64) resource.Quantity {
	return *resource.NewQuantity(int64(bytes), resource.BinarySI)
}

func nodeUsage(n nodeStats) (nodePoint, bool) {
	if n.CPU == nil || n.CPU.UsageNanoCores == nil || n.Memory == nil || n.Memory.WorkingSetBytes == nil {
		return nodePoint{}, false
	}
	return nodePoint{timestamp: n.CPU.Time.Time, usage: corev1.ResourceList{
		corev1.ResourceCPU: cpuQuantity(*n.CPU.UsageNanoCores), corev1.ResourceMemory: memoryQuantity(*n.Memory.WorkingSetBytes)}}, true
}

// podUsage is a pod's point; a pod with a container whose CPU or memory
// is not reported is left out, as metrics-server drops incomplete pods.
func podUsage(p podStats) (podPoint, bool) {
	if len(p.Containers) == 0 {
		return podPoint{}, false
	}
	var out podPoint
	for _, c := range p.Containers {
		if c.CPU == nil || c.CPU.UsageNanoCores == nil || c.Memory == nil || c.Memory.WorkingSetBytes == nil {
			return podPoint{}, false
		}
		if c.CPU.Time.After(out.timestamp) {
			out.timestamp = c.CPU.Time.Time
		}
		out.containers = append(out.containers, metricsv1beta1.ContainerMetrics{Name: c.Name, Usage: corev1.ResourceList{
			corev1.ResourceCPU: cpuQuantity(*c.CPU.UsageNanoCores), corev1.ResourceMemory: memoryQuantity(*c.Memory.WorkingSetBytes)}})
	}
	return out, true
}
