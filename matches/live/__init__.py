"""Live play over WebSockets: the board and lobby consumers, their routes, the fan-out of
pushed states to a process's boards, the limits on abuse and the sockets' database door.

A door like the REST API: it calls :mod:`matches.services` and reads through
:mod:`matches.selectors`; nothing below it imports it."""
