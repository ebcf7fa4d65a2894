#!/usr/bin/env bash
# Draw the README's picture, docs/review-screen.svg, anew from the real review screen on the
# bundled sample (the test tests/cli/readme_claims/screenshot.rs renders it into ratatui's
# TestBackend and writes each cell's text and colours as SVG). Run it after changing the screen
# and commit the picture: the same test, run without SPANREVIEW_SCREENSHOT, fails while the
# committed picture differs from the screen.
#
#   bench/screenshot.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SPANREVIEW_SCREENSHOT=write cargo test --test cli \
  readme_claims::screenshot::the_readme_picture_is_the_review_screen_as_drawn_now -- --exact
git status --short docs/review-screen.svg
