"""One sub-package per game; each holds its rules, deck, observation encoding and rules notes."""
