The village of Brenna opened a new footbridge over the Lusk river on Saturday.

The bridge replaces a ford that flooded every winter.

@highlight

brenna opened a footbridge over the lusk river .
