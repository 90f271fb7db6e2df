"""Look-ahead of the Crazy Rummy heuristic: can the hand go out this turn, and how.

Everything here works on card bitmasks (bit ``c`` = card id ``c``, see
``rummy_env.core.cards``) built from one player's observation.  The observation shows
which cards the table holds (natural cards and the cards wild cards stand for) but not
where one meld ends and the next starts, so lay-off spots are a guess
(:func:`layoff_spots`) wherever the action mask does not list them; a plan built on a
wrong guess fails at that step, and the agent goes on with its rules of thumb.
"""

from __future__ import annotations

from typing import NamedTuple

from rummy_env.core.cards import NUM_RANKS, NUM_SUITS, cards_of
from rummy_env.core.melds import MELDS
from rummy_env.games.crazy_rummy.hands import melds_to_put_down

_SUIT_BITS = (1 << NUM_RANKS) - 1
#: per rank, the bitmask of its four cards
_RANK_COLUMNS = tuple(sum(1 << (s * NUM_RANKS + r) for s in range(NUM_SUITS)) for r in range(NUM_RANKS))


def _fill_order(spare: int, keep_out: int) -> list[int]:
    """The wild cards of ``spare`` in the engine's fill order (``CrazyRummyState._fill_order``):
    one in ``keep_out`` (the card taken from the discard pile) first, then by card id."""
    return cards_of(spare & keep_out) + cards_of(spare & ~keep_out)


class TableView(NamedTuple):
    """The table as one player sees it (all card bitmasks).

    Attributes:
        represented: cards the table's melds hold, natural or stood for by a wild card.
        occupied: ``represented`` plus the wild cards themselves: no meld may name these
            again (R-CRAZY-05a).
        wild_for: ``{represented card: wild card standing for it}``.
    """

    represented: int
    occupied: int
    wild_for: dict[int, int]


def layoff_spots(table: TableView) -> int:
    """Bitmask of the cards that look like they extend a table meld (R-CRAZY-07).

    A card extends a set when the other three cards of its rank are on the table, and a
    run when the two cards next to it on one side (same suit) are.  The observation does
    not split the table into melds, so this is a guess: those cards might sit in other
    melds.
    """
    rep = table.represented
    spots = 0
    for suit in range(NUM_SUITS):
        shift = suit * NUM_RANKS
        row = rep >> shift & _SUIT_BITS
        below_a_run = (row >> 1) & (row >> 2)  # rank r with r+1 and r+2 on the table
        above_a_run = (row << 1) & (row << 2) & _SUIT_BITS
        spots |= (below_a_run | above_a_run) << shift
    for column in _RANK_COLUMNS:
        held = rep & column
        if held.bit_count() == 3:
            spots |= column & ~held
    return spots & ~table.occupied


def _near(cards: int) -> int:
    """Bitmask of the cards next to ``cards``: one rank away in the same suit, or of
    the same rank."""
    near = 0
    for card in cards_of(cards):
        rank = card % NUM_RANKS
        if rank > 0:
            near |= 1 << (card - 1)
        if rank < NUM_RANKS - 1:
            near |= 1 << (card + 1)
        near |= _RANK_COLUMNS[rank]
    return near & ~cards


Move = tuple[str, int]  # ("meld", meld id) | ("layoff", card) | ("wild", card stood for) | ("swap", card)


class GoOutPlanner:
    """Searches for a sequence of melds, lay-offs and swaps after which one card is left
    to discard, i.e. a way to go out this turn (R-CRAZY-07, 09).

    Args:
        wilds: bitmask of the round's wild cards (R-CRAZY-02).
        table: the table as the player sees it.
        known_spots: the cards that can be laid off on ``table`` as it is, when known
            exactly (the play phase's action mask lists them: every lay-off target of
            a card held, and of any card when a wild card is held).  The plan then
            lays off only there and next to the cards it puts down itself, where the
            guess of :func:`layoff_spots` is sure; without it the guess is used
            everywhere.

    Results are memoised per (hand, table) position.
    """

    def __init__(self, wilds: int, table: TableView, known_spots: int | None = None):
        self.wilds = wilds
        self.table = table
        self.known_spots = known_spots
        self._memo: dict[tuple, list[Move] | None] = {}
        self._spots: dict[tuple[int, int], int] = {}

    def plan(self, hand: int, melded: bool, keep_out: int = 0) -> list[Move] | None:
        """Moves that leave a single card which is not in ``keep_out`` (a card that may
        not be discarded, R-CRAZY-08), or ``None`` when the search finds none.
        ``[]`` means the hand is already one discardable card.
        """
        return self._search(hand, self.table.occupied, self.table.represented, melded, keep_out)

    def _search(self, hand: int, occupied: int, rep: int, melded: bool, keep_out: int) -> list[Move] | None:
        key = (hand, occupied, rep, melded, keep_out)
        if key in self._memo:
            return self._memo[key]
        # every move shrinks the hand or takes a wild card back from the table, so no
        # position repeats below itself; the None guards against that all the same
        self._memo[key] = None
        if hand.bit_count() == 1:
            result = None if hand & keep_out else []
        else:
            result = self._after_moves(hand, occupied, rep, melded, keep_out)
        self._memo[key] = result
        return result

    def _spots_of(self, rep: int, occupied: int) -> int:
        """Lay-off spots once the plan has put down the cards ``rep`` adds to the table."""
        spots = self._spots.get((rep, occupied))
        if spots is None:
            spots = layoff_spots(TableView(rep, occupied, {}))
            if self.known_spots is not None:
                spots = (self.known_spots | spots & _near(rep & ~self.table.represented)) & ~occupied
            self._spots[rep, occupied] = spots
        return spots

    def _after_moves(self, hand, occupied, rep, melded, keep_out) -> list[Move] | None:
        if melded:
            spots = self._spots_of(rep, occupied)
            for card in cards_of(hand & spots):
                bit = 1 << card
                rest = self._search(hand & ~bit, occupied | bit, rep | bit, True, keep_out)
                if rest is not None:
                    return [("layoff", card), *rest]
            held_wilds = _fill_order(hand & self.wilds & ~occupied, keep_out)  # R-CRAZY-05a
            if held_wilds:
                wild = 1 << held_wilds[0]
                for card in cards_of(spots & ~hand):
                    bit = 1 << card
                    rest = self._search(hand & ~wild, occupied | bit | wild, rep | bit, True, keep_out)
                    if rest is not None:
                        return [("wild", card), *rest]
            for card, wild in self.table.wild_for.items():
                if hand >> card & 1 and occupied >> wild & 1:  # that wild card is still on the table
                    # the natural card takes the wild card's place; the wild card comes into the hand
                    after = (occupied | 1 << card) & ~(1 << wild)
                    rest = self._search((hand & ~(1 << card)) | 1 << wild, after, rep, True, keep_out)
                    if rest is not None:
                        return [("swap", card), *rest]
        for meld_id in melds_to_put_down(hand, self.wilds, occupied):
            meld = MELDS[meld_id]
            used = meld.mask & hand
            spare = hand & self.wilds & ~meld.mask & ~occupied
            for wild in _fill_order(spare, keep_out)[: len(meld.cards) - used.bit_count()]:
                used |= 1 << wild
            rest = self._search(hand & ~used, occupied | meld.mask | used, rep | meld.mask, True, keep_out)
            if rest is not None:
                return [("meld", meld_id), *rest]
        return None
