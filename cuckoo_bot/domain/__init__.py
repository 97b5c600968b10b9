"""The rules of Cuckoo as a pure core: no I/O, no clock, no global randomness."""
