package app

import (
	"os"

	"github.com/google/uuid"
)

// LeaderIdentity is a server's holderIdentity in the Leases: the host name
// and a fresh uuid, as kube-controller-manager's HOSTNAME_UUID, so that
// two servers on one machine differ.
func LeaderIdentity() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "kubesim"
	}
	return host + "_" + uuid.NewString()
}
