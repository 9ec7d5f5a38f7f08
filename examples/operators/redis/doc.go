// Package redis is the RedisCluster operator of the seed's closing chapter:
// a controller that knows how to run one application. A StatefulSet gives
// Redis pods stable names, but a Redis Cluster also needs its 16384 hash
// slots spread over the masters, moved when masters come and go, and
// backups — knowledge no built-in controller has.
//
// Two custom kinds (group redis.kubesim.io, version v1, CRDs in crds.yaml):
// RedisCluster (spec.masters, spec.replicasPerMaster, spec.version,
// spec.restoreFrom) and RedisBackup (spec.clusterName). The cluster
// controller keeps a headless Service and a StatefulSet of
// masters×(1+replicasPerMaster) pods (pod k is a master when k is a
// multiple of 1+replicasPerMaster, otherwise a replica of the master before
// it), assigns the slots with PlanSlots once the masters are Running and
// Ready, moves slots off masters before the StatefulSet shrinks, and
// reports phase, members, slot ranges and conditions in status. The backup
// controller records a simulated snapshot (the slot map and a checksum) in
// the backup's status once the cluster is Running; a new RedisCluster with
// spec.restoreFrom starts from that snapshot's slot map.
//
// The Redis side is simulated: no Redis runs, slot migration is the status
// changing, and a snapshot holds no data. The real operators to read are
// github.com/OT-CONTAINER-KIT/redis-operator and the slot logic of
// redis-cli --cluster (src/redis-cli.c: clusterManagerCommandRebalance).
// Built on package controllers (ObjectController); runs in process
// (cluster.Config.Extra) or as `kubesim run-controller rediscluster`.
package redis
