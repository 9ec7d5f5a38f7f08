// Package browser tests kubesim's web page (package ui) in a real
// browser: headless Chromium (Debian's chromium package, or $CHROMIUM)
// driven by chromedp. Every wait is for a condition in the page's DOM,
// never for a length of time. Screenshots go to artifacts/ (git-ignored)
// or $KUBESIM_ARTIFACTS.
package browser
