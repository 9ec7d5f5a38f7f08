// Package sample is a device plugin, the kind a hardware vendor writes
// (NVIDIA's k8s-device-plugin is the best known): a gRPC server of
// k8s.io/kubelet's deviceplugin/v1beta1 DevicePlugin service on a unix
// socket in the kubelet's device plugin directory, which registers
// itself with the kubelet's Registration service (kubelet.sock in the
// same directory). Its devices are made up — Count of them, named after
// the resource ("gpu-0", "gpu-1", ... for example.com/gpu) — and their
// health is whatever SetHealth last said: a real plugin would watch its
// hardware instead.
//
// What each call answers, in the order the kubelet makes them:
//   - GetDevicePluginOptions: GetPreferredAllocation is offered, and
//     PreStartContainer when Config.PreStartRequired.
//   - ListAndWatch: the devices with their health, sent again whenever it
//     changes, for as long as the kubelet keeps the stream.
//   - GetPreferredAllocation: the devices the kubelet must include, then
//     the lowest-numbered available ones (a real plugin would pick devices
//     close to each other: the same NUMA node, linked GPUs).
//   - Allocate: for each container, an environment variable naming its
//     devices (GPU_VISIBLE_DEVICES=gpu-0,gpu-1, as NVIDIA_VISIBLE_DEVICES),
//     a device node per device (/dev/gpu-0), a read-only mount of the
//     "driver" directory and an annotation; an unknown or unhealthy device
//     is refused.
//   - PreStartContainer: nothing to do; a real plugin would reset the
//     device here.
//
// `kubesim device-plugin` runs it; docs/labs/18-device-plugin.md walks
// through it.
package sample
