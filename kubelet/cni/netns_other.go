//go:build !linux

package cni

import "os"

// realNetNS tells whether sandboxes get real network namespaces: network
// namespaces are Linux's.
func realNetNS() bool { return false }

// createNetNS is never called where realNetNS is false.
func createNetNS(path string) error { return os.WriteFile(path, nil, 0o644) }

// removeNetNS removes the placeholder file.
func removeNetNS(path string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
