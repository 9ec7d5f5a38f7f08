// Command conformance runs Kubernetes' own conformance suite against
// kubesim and writes what passed and what failed to docs/conformance.md.
//
// The suite is the [Conformance] specs of kubernetes/test/e2e, the ones a
// cluster must pass to call itself Kubernetes (the CNCF certification runs
// the same binary through Sonobuoy or Hydrophone). The program does what a
// certification run does, offline:
//
//   - build e2e.test of k8s.io/kubernetes at the version of the kubectl on
//     these machines (v1.32.4), once, into a cache directory
//     (~/.cache/kubesim/conformance/v1.32.4). The module proxy serves
//     k8s.io/kubernetes without its staging/src tree, which its go.mod
//     replaces every k8s.io/X with; each is filled with the published
//     k8s.io/X module of the same release (build.go);
//   - build kubesim from this tree and start `kubesim serve --nodes 3` on a
//     free port with a fresh data directory (serve.go);
//   - run the specs with the ginkgo CLI: the ones tagged neither [Serial]
//     nor [Disruptive] in parallel, or with -serial the [Serial] ones one at
//     a time (run.go);
//   - read the JUnit report and rewrite its part of docs/conformance.md:
//     the per-SIG table and every failure grouped by its message, with
//     what differs from spec to spec (names, numbers) taken out (report.go).
//
// It leaves out the [Disruptive] specs (they restart nodes and components)
// and the upload of results a certification makes.
//
// `make conformance` and `make conformance-serial` run it. Run it with
// nice: the specs and the server share the machine with everything else.
package main
