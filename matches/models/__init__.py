"""The matches app's records, one module per concept: play (players, tables, matches, games,
the append-only event log and ratings), analysis, chat, finding a game (seeks, challenges,
follows) and correspondence (vacations).

Only :mod:`matches.services` writes to these models; everything else reads through
:mod:`matches.selectors` or the models directly. Import them from here.
"""

from matches.models.analysis import (
    AnalysisRequest,
    AnalysisRequestKind,
    AnalysisStatus,
    DrillItem,
    MatchAnalysis,
)
from matches.models.chat import ChatBlock, ChatMessage, ChatModeration, ChatReport, ChatRoom
from matches.models.correspondence import Vacation
from matches.models.play import (
    Event,
    Game,
    GameEnding,
    LogKind,
    Match,
    MatchStatus,
    Player,
    PlayingRules,
    RatingRecord,
    Table,
    TableRules,
    TemplateRules,
)
from matches.models.social import (
    Challenge,
    ChallengeStatus,
    Follow,
    GameTerms,
    Seek,
    SeekPool,
    SeekStatus,
)

__all__ = [
    "AnalysisRequest", "AnalysisRequestKind", "AnalysisStatus", "Challenge", "ChallengeStatus",
    "ChatBlock", "ChatMessage", "ChatModeration", "ChatReport", "ChatRoom", "DrillItem",
    "Event", "Follow", "Game", "GameEnding", "GameTerms", "LogKind", "Match", "MatchAnalysis",
    "MatchStatus", "Player", "PlayingRules", "RatingRecord", "Seek", "SeekPool", "SeekStatus",
    "Table", "TableRules", "TemplateRules", "Vacation",
]
