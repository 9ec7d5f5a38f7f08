// Package prometheus scrapes kubesim with a real Prometheus: Debian's
// prometheus binary (apt-get install prometheus; .ci/run and `make tools`
// install it), started on a free loopback port with a scrape
// configuration for `kubesim serve`'s /metrics over HTTPS, with the
// bearer token of a member of the group system:monitoring and the
// cluster's CA — as a Prometheus in a real cluster scrapes its API
// server. The test reads the answers of PromQL queries through
// Prometheus' HTTP API (/api/v1/query), waiting on conditions, never on
// lengths of time.
package prometheus
