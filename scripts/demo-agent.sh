#!/bin/sh
# The demo's scripted agent: what a headless coding agent does in a lane, without a model.
# It reads its item (ABCD_ITEM_FILE), makes the change the item asks for, commits it, and
# reports the tokens a model would have used (ABCD_USAGE). Lines the item asks for:
#   file: <path>        the file to change
#   append: <text>      a line to append to it
set -eu
file=$(sed -n 's/^file: //p' "$ABCD_ITEM_FILE" | head -n 1)
line=$(sed -n 's/^append: //p' "$ABCD_ITEM_FILE" | head -n 1)
title=$(sed -n 's/^title: //p' "$ABCD_ITEM_FILE" | head -n 1 | tr -d '"')
[ -n "$file" ] || { echo "the item names no file" >&2; exit 2; }
mkdir -p "$(dirname "$file")"
printf '%s\n' "$line" >> "$file"
git add "$file"
git commit -q -m "$title"
echo "{\"tokens\": $(( ${#line} * 40 ))}" >> "$ABCD_USAGE"
echo "demo agent: $ABCD_ITEM -> $file"
