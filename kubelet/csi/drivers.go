package csi

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"sync"
)

// Drivers records which driver listens on which socket, per node: the
// kubelets add what registers with them, the controller-side sidecars
// look up a driver's controller service. Safe for concurrent use; made by
// whoever wires the cluster and given to both (never a global).
type Drivers struct {
	mu sync.Mutex
	// endpoints are the sockets by driver, then node.
	endpoints map[string]map[string]string
}

// NewDrivers returns an empty registry.
func NewDrivers() *Drivers { return &Drivers{endpoints: map[string]map[string]string{}} }

// Add notes that driver listens at endpoint on node.
func (d *Drivers) Add(driver, node, endpoint string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.endpoints[driver] == nil {
		d.endpoints[driver] = map[string]string{}
	}
	d.endpoints[driver][node] = endpoint
}

// Remove forgets driver on node.
func (d *Drivers) Remove(driver, node string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.endpoints[driver], node)
	if len(d.endpoints[driver]) == 0 {
		delete(d.endpoints, driver)
	}
}

// Endpoint is where driver's controller service is reached: its socket
// on the first node (by name) it registered with, as a sidecar deployed
// once per driver would reach its one controller plugin.
func (d *Drivers) Endpoint(driver string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	nodes := d.endpoints[driver]
	if len(nodes) == 0 {
		return "", false
	}
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	slices.Sort(names)
	return nodes[names[0]], true
}

// NodeEndpoint is driver's socket on node, for the node's kubelet.
func (d *Drivers) NodeEndpoint(driver, node string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	ep, ok := d.endpoints[driver][node]
	return ep, ok
}

// AttachmentName is the VolumeAttachment's name for a volume on a node,
// as the attach/detach controller and the kubelet both compute it
// (csi_attacher.go getAttachmentName).
func AttachmentName(handle, driver, node string) string {
	sum := sha256.Sum256([]byte(handle + driver + node))
	return "csi-" + hex.EncodeToString(sum[:])
}
