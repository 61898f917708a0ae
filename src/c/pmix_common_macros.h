/* Hand-kept C: function-like macros and static initialisers (filled in below). */
