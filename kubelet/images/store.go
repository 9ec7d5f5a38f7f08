package images

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// What a node status reports of its images (the kubelet's
// nodeStatusMaxImages and MaxNamesPerImageInNodeStatus).
const (
	MaxImagesInNodeStatus        = 50
	MaxNamesPerImageInNodeStatus = 5
)

// Store is one node's images — what its container runtime holds — and its
// puller. The kubelet pulls one image at a time (serializeImagePulls, on by
// default): a pull asked for while another runs waits for it. Not safe for
// concurrent use: the kubelet guards it.
type Store struct {
	// images are by name@digest.
	images map[string]*storedImage
	// free is when the puller has finished the pulls it was given.
	free time.Time
}

// storedImage is an image on the node, from the end of the pull that
// brought it.
type storedImage struct {
	Resolved
	tags []string
	from time.Time
}

// NewStore is a node with no images.
func NewStore() *Store {
	return &Store{images: map[string]*storedImage{}}
}

// Add puts img on the node from at (the end of its pull, or a load); a
// pull by tag adds the tag to an image the node has.
func (s *Store) Add(img Resolved, at time.Time) {
	key := img.ID()
	si := s.images[key]
	if si == nil {
		si = &storedImage{Resolved: img, from: at}
		si.Tag = ""
		s.images[key] = si
	}
	if at.Before(si.from) {
		si.from = at
	}
	if img.Tag != "" && !slices.Contains(si.tags, img.Tag) {
		si.tags = append(si.tags, img.Tag)
		slices.Sort(si.tags)
	}
}

// Find is the image ref names if the node has it at time at: by digest,
// or by name and tag.
func (s *Store) Find(ref Ref, at time.Time) (Resolved, bool) {
	if ref.Digest != "" {
		si := s.images[ref.Name+"@"+ref.Digest]
		if si == nil || si.from.After(at) {
			return Resolved{}, false
		}
		return si.Resolved, true
	}
	for _, si := range s.images {
		if si.Name == ref.Name && !si.from.After(at) && slices.Contains(si.tags, ref.Tag) {
			res := si.Resolved
			res.Tag = ref.Tag
			return res, true
		}
	}
	return Resolved{}, false
}

// hasLayers reports whether the node has img's layers at time at.
func (s *Store) hasLayers(img Resolved, at time.Time) bool {
	si := s.images[img.ID()]
	return si != nil && !si.from.After(at)
}

// reserve gives the puller a pull of duration d asked for at now: it
// starts when the pulls before it are done.
func (s *Store) reserve(now time.Time, d time.Duration) (start, done time.Time) {
	start = now
	if s.free.After(start) {
		start = s.free
	}
	s.free = start.Add(d)
	return start, s.free
}

// startOf is when a pull asked for at now would start.
func (s *Store) startOf(now time.Time) time.Time {
	if s.free.After(now) {
		return s.free
	}
	return now
}

// Reported reports whether reported — a node status's images — lists
// what NodeImages(at) would, without making that list: a heartbeat asks
// every 10 s, and the images seldom change.
func (s *Store) Reported(reported []corev1.ContainerImage, at time.Time) bool {
	n := 0
	for _, si := range s.images {
		if !si.from.After(at) {
			n++
		}
	}
	if n > MaxImagesInNodeStatus {
		// Which images make the list depends on them all: render it.
		return slices.EqualFunc(s.NodeImages(at), reported, func(a, b corev1.ContainerImage) bool {
			return a.SizeBytes == b.SizeBytes && slices.Equal(a.Names, b.Names)
		})
	}
	if n != len(reported) {
		return false
	}
	for _, ri := range reported {
		if len(ri.Names) == 0 {
			return false
		}
		si := s.images[ri.Names[0]]
		if si == nil || si.from.After(at) || si.Size != ri.SizeBytes || len(ri.Names) != min(1+len(si.tags), MaxNamesPerImageInNodeStatus) {
			return false
		}
	}
	return true
}

// NodeImages are the images the node has at time at as its status
// reports them: largest first, each named by its digest and then its
// tags (docker.io/library/nginx@sha256:…, docker.io/library/nginx:1.27).
func (s *Store) NodeImages(at time.Time) []corev1.ContainerImage {
	var list []*storedImage
	for _, si := range s.images {
		if !si.from.After(at) {
			list = append(list, si)
		}
	}
	slices.SortFunc(list, func(a, b *storedImage) int {
		if a.Size != b.Size {
			if a.Size > b.Size {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID(), b.ID())
	})
	if len(list) > MaxImagesInNodeStatus {
		list = list[:MaxImagesInNodeStatus]
	}
	out := make([]corev1.ContainerImage, 0, len(list))
	for _, si := range list {
		names := []string{si.ID()}
		for _, t := range si.tags {
			names = append(names, si.Name+":"+t)
		}
		if len(names) > MaxNamesPerImageInNodeStatus {
			names = names[:MaxNamesPerImageInNodeStatus]
		}
		out = append(out, corev1.ContainerImage{Names: names, SizeBytes: si.Size})
	}
	return out
}
