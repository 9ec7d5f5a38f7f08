package podautoscaler

import (
	"errors"
	"fmt"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The replica calculator's parameters (kube-controller-manager flags).
const (
	// DefaultTolerance: a usage ratio within 10% of 1 changes nothing
	// (--horizontal-pod-autoscaler-tolerance).
	DefaultTolerance = 0.1
	// DefaultCPUInitializationPeriod: a pod this young whose CPU sample
	// predates a full window after it became ready is not trusted
	// (--horizontal-pod-autoscaler-cpu-initialization-period).
	DefaultCPUInitializationPeriod = 5 * time.Minute
	// DefaultInitialReadinessDelay: a pod not ready within this of its
	// start is counted as not yet ready
	// (--horizontal-pod-autoscaler-initial-readiness-delay).
	DefaultInitialReadinessDelay = 30 * time.Second
)

// PodMetric is one pod's usage of a resource, in milli-units (millicores,
// milli-bytes), with when and over which window it was measured.
type PodMetric struct {
	Timestamp time.Time
	Window    time.Duration
	Value     int64
}

// PodMetricsInfo is the metrics by pod name.
type PodMetricsInfo map[string]PodMetric

// Calculator is the replica calculator's configuration.
type Calculator struct {
	Tolerance               float64
	CPUInitializationPeriod time.Duration
	InitialReadinessDelay   time.Duration
}

// DefaultCalculator has kube-controller-manager's defaults.
func DefaultCalculator() Calculator {
	return Calculator{Tolerance: DefaultTolerance, CPUInitializationPeriod: DefaultCPUInitializationPeriod,
		InitialReadinessDelay: DefaultInitialReadinessDelay}
}

// errNoMetrics is what the metrics client reports when the API returned
// no pod of the selector.
var errNoMetrics = errors.New("no metrics returned from resource metrics API")

// groupPods sorts the pods as the real groupPods does: deleted and
// failed pods are ignored, pending ones are unready, those without a
// sample are missing, and for CPU a pod that is not ready (or ready too
// recently for its sample to count) is unready; the rest are ready.
func (c Calculator) groupPods(pods []*corev1.Pod, metrics PodMetricsInfo, resource corev1.ResourceName, now time.Time) (ready int, unready, missing, ignored map[string]bool) {
	unready, missing, ignored = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodFailed {
			ignored[pod.Name] = true
			continue
		}
		if pod.Status.Phase == corev1.PodPending {
			unready[pod.Name] = true
			continue
		}
		metric, found := metrics[pod.Name]
		if !found {
			missing[pod.Name] = true
			continue
		}
		if resource == corev1.ResourceCPU {
			var notReady bool
			cond := readyCondition(pod)
			switch {
			case cond == nil || pod.Status.StartTime == nil:
				notReady = true
			case pod.Status.StartTime.Add(c.CPUInitializationPeriod).After(now):
				// Still initializing: a sample taken before one full
				// window after the pod became ready may see its start-up.
				notReady = cond.Status == corev1.ConditionFalse || metric.Timestamp.Before(cond.LastTransitionTime.Add(metric.Window))
			default:
				// Never ready since it started.
				notReady = cond.Status == corev1.ConditionFalse && pod.Status.StartTime.Add(c.InitialReadinessDelay).After(cond.LastTransitionTime.Time)
			}
			if notReady {
				unready[pod.Name] = true
				continue
			}
		}
		ready++
	}
	return ready, unready, missing, ignored
}

func readyCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// podRequests sums each pod's request of the resource (of one container
// when container is set), in milli-units; a container without the
// request makes the utilization impossible to compute.
func podRequests(pods []*corev1.Pod, container string, resource corev1.ResourceName) (map[string]int64, error) {
	out := make(map[string]int64, len(pods))
	for _, pod := range pods {
		var sum int64
		for _, c := range pod.Spec.Containers {
			if container != "" && c.Name != container {
				continue
			}
			q, ok := c.Resources.Requests[resource]
			if !ok {
				return nil, fmt.Errorf("missing request for %s in container %s of Pod %s", resource, c.Name, pod.Name)
			}
			sum += q.MilliValue()
		}
		out[pod.Name] = sum
	}
	return out, nil
}

// utilizationRatio is GetResourceUtilizationRatio: the pods' total usage
// as a percentage of their total request, over the target; also that
// percentage and the average raw usage.
func utilizationRatio(metrics PodMetricsInfo, requests map[string]int64, target int32) (ratio float64, utilization int32, rawAverage int64, err error) {
	var metricsTotal, requestsTotal, n int64
	for name, m := range metrics {
		req, ok := requests[name]
		if !ok {
			continue
		}
		metricsTotal += m.Value
		requestsTotal += req
		n++
	}
	if requestsTotal == 0 {
		return 0, 0, 0, errors.New("no metrics returned matched known pods")
	}
	utilization = int32(metricsTotal * 100 / requestsTotal)
	return float64(utilization) / float64(target), utilization, metricsTotal / n, nil
}

// usageRatio is GetMetricUsageRatio: the average usage over the target.
func usageRatio(metrics PodMetricsInfo, target int64) (float64, int64) {
	var total int64
	for _, m := range metrics {
		total += m.Value
	}
	avg := total / int64(len(metrics))
	return float64(avg) / float64(target), avg
}

// ResourceReplicas is GetResourceReplicas: the replicas that bring the
// pods' average utilization (percent of request) to target. It also
// returns the utilization and the raw average usage as observed.
func (c Calculator) ResourceReplicas(current int32, target int32, resource corev1.ResourceName, container string,
	pods []*corev1.Pod, metrics PodMetricsInfo, now time.Time) (replicas int32, utilization int32, rawAverage int64, err error) {
	if len(pods) == 0 {
		return 0, 0, 0, errors.New("no pods returned by selector while calculating replica count")
	}
	metrics = copyMetrics(metrics)
	ready, unready, missing, ignored := c.groupPods(pods, metrics, resource, now)
	removeMetrics(metrics, ignored)
	removeMetrics(metrics, unready)
	if len(metrics) == 0 {
		return 0, 0, 0, errors.New("did not receive metrics for targeted pods (pods might be unready)")
	}
	requests, err := podRequests(pods, container, resource)
	if err != nil {
		return 0, 0, 0, err
	}
	ratio, utilization, rawAverage, err := utilizationRatio(metrics, requests, target)
	if err != nil {
		return 0, 0, 0, err
	}
	scaleUpWithUnready := len(unready) > 0 && ratio > 1.0
	if !scaleUpWithUnready && len(missing) == 0 {
		if math.Abs(1.0-ratio) <= c.Tolerance {
			return current, utilization, rawAverage, nil
		}
		return int32(math.Ceil(ratio * float64(ready))), utilization, rawAverage, nil
	}
	if len(missing) > 0 {
		// The pods without a sample are assumed to use as much as would
		// least move the decision: their whole request (or the target, if
		// higher) on a scale down, nothing on a scale up.
		fallback := max(int64(100), int64(target))
		for name := range missing {
			v := int64(0)
			if ratio < 1.0 {
				v = requests[name] * fallback / 100
			}
			metrics[name] = PodMetric{Value: v}
		}
	}
	if scaleUpWithUnready {
		for name := range unready {
			metrics[name] = PodMetric{Value: 0}
		}
	}
	newRatio, _, _, err := utilizationRatio(metrics, requests, target)
	if err != nil {
		return 0, 0, 0, err
	}
	if math.Abs(1.0-newRatio) <= c.Tolerance || (ratio < 1.0 && newRatio > 1.0) || (ratio > 1.0 && newRatio < 1.0) {
		// Within tolerance now, or the assumptions reverse the direction:
		// do nothing.
		return current, utilization, rawAverage, nil
	}
	replicas = int32(math.Ceil(newRatio * float64(len(metrics))))
	if (newRatio < 1.0 && replicas > current) || (newRatio > 1.0 && replicas < current) {
		return current, utilization, rawAverage, nil
	}
	return replicas, utilization, rawAverage, nil
}

// RawResourceReplicas is GetRawResourceReplicas (an AverageValue target,
// in milli-units): calcPlainMetricReplicas on the pods' usage.
func (c Calculator) RawResourceReplicas(current int32, target int64, resource corev1.ResourceName,
	pods []*corev1.Pod, metrics PodMetricsInfo, now time.Time) (replicas int32, average int64, err error) {
	if len(pods) == 0 {
		return 0, 0, errors.New("no pods returned by selector while calculating replica count")
	}
	metrics = copyMetrics(metrics)
	ready, unready, missing, ignored := c.groupPods(pods, metrics, resource, now)
	removeMetrics(metrics, ignored)
	removeMetrics(metrics, unready)
	if len(metrics) == 0 {
		return 0, 0, errors.New("did not receive metrics for targeted pods (pods might be unready)")
	}
	ratio, average := usageRatio(metrics, target)
	scaleUpWithUnready := len(unready) > 0 && ratio > 1.0
	if !scaleUpWithUnready && len(missing) == 0 {
		if math.Abs(1.0-ratio) <= c.Tolerance {
			return current, average, nil
		}
		return int32(math.Ceil(ratio * float64(ready))), average, nil
	}
	for name := range missing {
		v := int64(0)
		if ratio < 1.0 {
			v = target
		}
		metrics[name] = PodMetric{Value: v}
	}
	if scaleUpWithUnready {
		for name := range unready {
			metrics[name] = PodMetric{Value: 0}
		}
	}
	newRatio, _ := usageRatio(metrics, target)
	if math.Abs(1.0-newRatio) <= c.Tolerance || (ratio < 1.0 && newRatio > 1.0) || (ratio > 1.0 && newRatio < 1.0) {
		return current, average, nil
	}
	replicas = int32(math.Ceil(newRatio * float64(len(metrics))))
	if (newRatio < 1.0 && replicas > current) || (newRatio > 1.0 && replicas < current) {
		return current, average, nil
	}
	return replicas, average, nil
}

func copyMetrics(m PodMetricsInfo) PodMetricsInfo {
	out := make(PodMetricsInfo, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func removeMetrics(m PodMetricsInfo, pods map[string]bool) {
	for name := range pods {
		delete(m, name)
	}
}
