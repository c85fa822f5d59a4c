"""Club seasons' records. Every change goes through :mod:`seasons.services`."""

from __future__ import annotations

from datetime import datetime

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from matches.models import Match, Player, TemplateRules


class Arena(TemplateRules):
    """A timed arena: between ``starts_at`` and ``ends_at`` its free players are paired at
    once (:mod:`seasons.formats.arena`); its tables follow these rules at ``match_length``."""

    name = models.CharField(_("name"), max_length=80)
    match_length = models.PositiveSmallIntegerField(_("match length"), default=3)
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"))
    created_by = models.ForeignKey(Player, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+", verbose_name=_("created by"))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    # Set once the time is up and the last match in play has finished.
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)

    class Meta:
        verbose_name = _("arena")
        verbose_name_plural = _("arenas")
        ordering = ["-starts_at"]
        indexes = [models.Index(fields=["closed_at", "starts_at"])]

    def __str__(self) -> str:
        return self.name

    def is_running(self, now: datetime) -> bool:
        """Whether players are paired at ``now``: started, not yet at its end."""
        return self.closed_at is None and self.starts_at <= now < self.ends_at


class ArenaEntry(models.Model):
    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="arena_entries")
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)
    # A paused player is not paired until they come back; their points stay.
    paused = models.BooleanField(_("paused"), default=False)
    # Since when the player has been free (joined, back from a pause, or their last match
    # ended): who waited longest is paired first among equals.
    free_since = models.DateTimeField(_("free since"), default=timezone.now)

    class Meta:
        verbose_name = _("arena player")
        verbose_name_plural = _("arena players")
        constraints = [models.UniqueConstraint(fields=["arena", "player"],
                                               name="one_entry_per_arena_player")]


class ArenaGame(models.Model):
    """One match of the arena; its result (``winner``, ``finished_at``) scores when it ends."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="games")
    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="arena_game")
    player_a = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    player_b = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(_("paired at"), default=timezone.now)
    winner = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="+")
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("arena match")
        verbose_name_plural = _("arena matches")
        indexes = [models.Index(fields=["arena", "finished_at"])]


class Ladder(TemplateRules):
    """A challenge ladder (:mod:`seasons.formats.ladder`): players challenge up to ``reach``
    places above; the defender accepts within ``accept_days``, the match is finished within
    ``play_days``; a player with no ladder match decided for ``inactivity_days`` drops
    ``drop_places`` places. Its tables follow these rules at ``match_length``."""

    name = models.CharField(_("name"), max_length=80)
    # Club-wide when empty; otherwise the division (or group) the ladder is for, by name.
    scope = models.CharField(_("division"), max_length=80, blank=True)
    reach = models.PositiveSmallIntegerField(_("challenge reach (places)"), default=3)
    accept_days = models.PositiveSmallIntegerField(_("days to accept"), default=3)
    play_days = models.PositiveSmallIntegerField(_("days to play"), default=7)
    inactivity_days = models.PositiveSmallIntegerField(_("inactive after (days)"), default=14)
    drop_places = models.PositiveSmallIntegerField(_("drop for inactivity (places)"), default=2)
    match_length = models.PositiveSmallIntegerField(_("match length"), default=5)
    created_by = models.ForeignKey(Player, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+", verbose_name=_("created by"))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("ladder")
        verbose_name_plural = _("ladders")
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name


class LadderEntry(models.Model):
    """A player's rung: ``place`` 1 is the top. The places always equal the replay of the
    ladder's events (:func:`seasons.services.ladder.ladder_check`)."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ladder_entries")
    place = models.PositiveIntegerField(_("place"))
    joined_at = models.DateTimeField(_("joined"))
    # The last time a ladder match of theirs was decided (or they joined): inactivity counts
    # from here, or from their last drop, whichever is later (a drop once per period).
    active_at = models.DateTimeField(_("last active"))
    dropped_at = models.DateTimeField(_("last dropped"), null=True, blank=True)

    class Meta:
        verbose_name = _("ladder player")
        verbose_name_plural = _("ladder players")
        ordering = ["ladder", "place"]
        constraints = [models.UniqueConstraint(fields=["ladder", "player"],
                                               name="one_entry_per_ladder_player")]


class ChallengeStatus(models.TextChoices):
    OPEN = "open", _("waiting for the defender")
    ACCEPTED = "accepted", _("accepted: to be played")
    DECLINED = "declined", _("declined")
    EXPIRED = "expired", _("expired")
    DECIDED = "decided", _("decided")
    VOIDED = "voided", _("voided")


#: Challenges still to be decided: a player takes part in at most one of these at a time.
PENDING = (ChallengeStatus.OPEN, ChallengeStatus.ACCEPTED)


class LadderChallenge(models.Model):
    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="challenges")
    challenger = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+",
                                   verbose_name=_("challenger"))
    defender = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+",
                                 verbose_name=_("defender"))
    status = models.CharField(_("status"), max_length=10, choices=ChallengeStatus.choices,
                              default=ChallengeStatus.OPEN)
    created_at = models.DateTimeField(_("challenged"))
    accept_by = models.DateTimeField(_("accept by"))
    accepted_at = models.DateTimeField(_("accepted"), null=True, blank=True)
    play_by = models.DateTimeField(_("play by"), null=True, blank=True)
    match = models.OneToOneField(Match, on_delete=models.PROTECT, null=True, blank=True,
                                 related_name="ladder_challenge")
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    winner = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="+", verbose_name=_("winner"))
    forfeit = models.BooleanField(_("by forfeit"), default=False)

    class Meta:
        verbose_name = _("ladder challenge")
        verbose_name_plural = _("ladder challenges")
        indexes = [models.Index(fields=["ladder", "status"]),
                   models.Index(fields=["status", "accept_by"]),
                   models.Index(fields=["status", "play_by"])]


class LadderEventKind(models.TextChoices):
    JOINED = "joined", _("joined")
    LEFT = "left", _("left")
    DECIDED = "decided", _("challenge decided")
    DROPPED = "dropped", _("dropped for inactivity")


class LadderEvent(models.Model):
    """One change of the ladder, as :mod:`seasons.formats.ladder` names it; numbered from 1
    per ladder. Replaying them in order gives the ladder's order."""

    ladder = models.ForeignKey(Ladder, on_delete=models.CASCADE, related_name="events")
    sequence = models.PositiveIntegerField(_("number"))
    at = models.DateTimeField(_("time"))
    kind = models.CharField(_("change"), max_length=10, choices=LadderEventKind.choices)
    # Joined, Left, Dropped: the player; Decided: the challenger.
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    defender = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True,
                                 related_name="+")
    winner = models.ForeignKey(Player, on_delete=models.PROTECT, null=True, blank=True,
                               related_name="+")
    forfeit = models.BooleanField(default=False)
    places = models.PositiveSmallIntegerField(default=0)
    challenge = models.ForeignKey(LadderChallenge, on_delete=models.PROTECT, null=True,
                                  blank=True, related_name="events")

    class Meta:
        verbose_name = _("ladder change")
        verbose_name_plural = _("ladder changes")
        ordering = ["ladder", "sequence"]
        constraints = [models.UniqueConstraint(fields=["ladder", "sequence"],
                                               name="one_ladder_event_per_number")]


class League(TemplateRules):
    """A season league: each season is a tournament event whose divisions are round robins;
    between seasons the top and bottom ``move`` of each division change division
    (:mod:`seasons.formats.league`). Its settings shape every season: ``divisions`` divisions
    of at most ``division_size`` players for the first, matches to ``match_length`` points,
    ``round_days`` per round, the tables' rules (a live clock or ``correspondence_days``)."""

    name = models.CharField(_("name"), max_length=80)
    move = models.PositiveSmallIntegerField(_("promoted and relegated per division"), default=1)
    divisions = models.PositiveSmallIntegerField(_("divisions"), default=1)
    division_size = models.PositiveSmallIntegerField(_("players per division (at most)"),
                                                     default=8)
    match_length = models.PositiveSmallIntegerField(_("match length"), default=3)
    round_days = models.PositiveSmallIntegerField(_("days per round"), default=7)
    created_by = models.ForeignKey(Player, on_delete=models.SET_NULL, null=True, blank=True,
                                   related_name="+", verbose_name=_("created by"))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("league")
        verbose_name_plural = _("leagues")
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name


class LeagueMember(models.Model):
    """A player the director enrolled: drawn into the first season, or joining the last
    division of the next one; once withdrawn (``left_at``), out of the next season."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="members")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="league_members",
                               verbose_name=_("player"))
    enrolled_at = models.DateTimeField(_("enrolled"), default=timezone.now)
    # Withdrawn by the director: leaves the league at the next season (their results in the
    # current one stand, as the round robin says).
    left_at = models.DateTimeField(_("withdrawn"), null=True, blank=True)

    class Meta:
        verbose_name = _("league player")
        verbose_name_plural = _("league players")
        ordering = ["league", "enrolled_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["league", "player"],
                                               name="one_member_per_league_player")]


class LeagueSeason(models.Model):
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveSmallIntegerField(_("season"))
    # The season's event: its divisions (``event.divisions``) are the league's divisions, best
    # first by ``division_order``.
    event = models.OneToOneField("tournaments.Tournament", on_delete=models.PROTECT,
                                 related_name="league_season")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("league season")
        verbose_name_plural = _("league seasons")
        ordering = ["league", "number"]
        constraints = [models.UniqueConstraint(fields=["league", "number"],
                                               name="one_league_season_per_number")]
