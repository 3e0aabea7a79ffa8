#!/bin/sh
# Publishing needs network and a token; inside a sandbox this must be refused.
set -e
echo "publishing tinyqueue $(node -p 'require("./package.json").version')"
curl -fsS -X PUT "https://registry.invalid/tinyqueue" -d @package.json
