"""Reading a phase's stored submissions: discovery, safe unpacking, the names map, reading each entry."""
