"""Table chat: the rooms and their rules (:mod:`matches.chat.rooms`), the chat half of the
board socket (:mod:`matches.chat.socket`) and the referees' view (:mod:`matches.chat.admin`)."""
