"""The depth-2 search over a placement list (``plan``).

The search is exact (``tests/test_shifting_stones_bots.py`` checks it against the plain
search).  The last move of a sequence is never tried grid by grid: for each placement of
each card, the moves that complete it in one step follow from its wrong cells (one wrong
cell can be flipped, or swapped with a neighbour outside the footprint that shows the
wanted face; two must be neighbours holding each other's faces; three or more need more
than one move), see ``analyse``.  So depth 1 is one pass over the hand's placements.
Depth 2 (``plan``) lists the placements once and works out for each the first moves
after which it could gain a completion and those after which it could lose one
(``build_list``), then tries only the first moves after which something can gain,
best bound first, analysing again only the placements those moves can change
(``level2_over_list``); any other first move is worth less than the best single move.  Hands
too large for ``scratch`` (and depth 3, for studies) use the plain search, which tries
the 21 first moves (and pairs) one by one.
"""
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from simcore.bits import compress3
from simcore.games.shifting_stones import FLIP_BASE, HALF, MOVES, P_PL_MASK, P_PL_START, P_PL_VALUE, P_POINTS, PAIR_A, PAIR_B
from simcore.rng import popcount

from .grid import (ALL_MOVES, CELLBITS, EPS, MATCHED, MOVES_TOUCHING, NB, NB_PAIR, NEIGH9, NO, NO_VALUE,
                   REP, YES, analyse, do_move, kernel)
from .plain import search
from .scratch import (BASE, BEST_CHANGED, BEST_COMPS, BEST_M2, BEST_ROOM, CARD_W, FILL, GAIN, GAIN_LOW,
                      GAIN_SHIFT, MAX_CARDS, MAX_LIST, PU, PU_SIZE, R0, U0)

@kernel
def _face(grid, x):
    return (grid >> (3 * x)) & 7


@kernel
def _puts(s, z, f):
    """The moves after which cell ``z`` shows face ``f`` and did not before (0 for the
    dummy cell 9)."""
    return s[PU + 8 * z + f]


@kernel
def _set_puts(s, z, f, bits):
    s[PU + 8 * z + f] |= bits


@kernel
def _new_rows(s, grid, cells, wrong, value):
    """The first moves after which a placement (cells, wrong cells: 9-bit sets; wanted
    faces) could match or gain a completion: a superset, as the second move has to fix
    what is wrong after the first, so the first must bring a wanted face to a cell
    without spoiling another:
    one wrong cell x (wants w): x gets w; x gets w's flip side from outside the
    footprint; a neighbour outside gets w without a cell of the footprint moving (to be
    swapped in); a neighbour in it that x's face would fix gets w (they then cross);
    two wrong a, b: one is fixed while the other can be fixed by one move from outside
    or shows a face of a kind the fixing move may bring it, or one gets the other's
    face while the other shows its (they then cross);
    three or four: a fix by a move that also touches another wrong cell (two fixes at
    once) or, with three, while the other two already hold each other's faces."""
    x = trailing_zeros(wrong | 512)
    rest = wrong & (wrong - 1)
    if rest == 0:
        w = (value >> (3 * x)) & 7
        fx = _face(grid, x)
        inside = MOVES_TOUCHING[cells]
        new = _puts(s, x, w) | (_puts(s, x, w ^ 1) & ~MOVES_TOUCHING[cells & ~(np.int64(1) << x)])
        for k in range(4):  # branch-free: inside (and fixed by fx) or outside
            y = NB[x, k]
            iny = (cells >> y) & 1
            sel = (~inside & (iny - 1)) | -(iny & np.int64(fx == (value >> (3 * y)) & 7))
            new |= _puts(s, y, w) & sel
        return new
    if rest & (rest - 1) == 0:
        y = trailing_zeros(rest)
        wx = (value >> (3 * x)) & 7
        wy = (value >> (3 * y)) & 7
        fx = _face(grid, x)
        fy = _face(grid, y)
        px = _puts(s, x, wx)
        py = _puts(s, y, wy)
        fix_y = np.int64(((py & ~MOVES_TOUCHING[cells & ~(np.int64(1) << y)]) != 0) | (fx >> 1 == wy >> 1))
        fix_x = np.int64(((px & ~MOVES_TOUCHING[cells & ~(np.int64(1) << x)]) != 0) | (fy >> 1 == wx >> 1))
        new = (px & -fix_y) | (py & -fix_x)
        adj = (NEIGH9[x] >> y) & 1
        new |= (_puts(s, x, wy) & -(adj & np.int64(fy == wx))) | (_puts(s, y, wx) & -(adj & np.int64(fx == wy)))
        return new
    nw = popcount(wrong)
    new = np.int64(0)
    if nw > 4:  # a move fixes at most two cells, and one move must be left for the rest
        return new
    ww = wrong
    while ww:
        x = trailing_zeros(ww)
        ww &= ww - 1
        others = wrong & ~(np.int64(1) << x)
        fix = _puts(s, x, (value >> (3 * x)) & 7)
        crossed = False
        if nw == 3:
            a = trailing_zeros(others)
            b = trailing_zeros(others & (others - 1))
            crossed = ((NEIGH9[a] >> b) & 1) == 1 and _face(grid, a) == (value >> (3 * b)) & 7 \
                and _face(grid, b) == (value >> (3 * a)) & 7
        if not crossed:
            fix &= MOVES_TOUCHING[others]
        new |= fix
    return new


@kernel
def build_list(params, grid, lo, hi, s, with_new, reuse):
    """Write the hand's placements at ``grid`` to scratch (layout above): per card its
    completions, per placement its completions, per move the points and count of the
    cards it completes.  With ``with_new``, also for each placement the first moves
    after which it may gain completions (or match), ``_new_rows``, and those after which
    it may lose some: if it has some, the moves that touch its cells or, when one cell
    x is wrong, the neighbours its swap completions use (and x itself only when a flip
    of x completes it), and move a face of a kind its cells want.  Every
    other placement keeps its completions.
    With ``reuse``, the list was just built for the same grid and hand (without the
    rows): the completions are read back instead of worked out again.
    Returns (the number of cards, or -1 when the hand does not fit: then the plain
    search runs; the first moves worth trying: a first move in no placement's new rows
    completes nothing and leaves no more completions than ``grid`` has, so it is worth
    less than the best single move, see ``level2_over_list``)."""
    ncards = popcount(lo) + popcount(hi)
    pl = BASE + CARD_W * ncards
    cap = min(MAX_LIST, (s.shape[0] - pl) // 2)
    if ncards > MAX_CARDS:
        return -1, np.int64(0)
    for m in range(MOVES):
        s[R0 + m] = 0
    k0 = k1 = k2 = k3 = np.int64(0)
    if with_new:
        k0, k1, k2, k3 = _build_puts(grid, s)
    # first the cards (headers, and which card and placement each list entry is), then
    # one loop over every placement: a loop per card has an exit that is hard to predict
    k = 0
    e = 0
    for word in range(2):
        m = lo if word == 0 else hi
        base = 0 if word == 0 else HALF
        while m:
            c = base + trailing_zeros(m)
            m &= m - 1
            start = params[P_PL_START + c]
            end = params[P_PL_START + c + 1]
            if e + end - start > cap:
                return -1, np.int64(0)
            s[BASE + CARD_W * k] = c | (params[P_POINTS + c] << 8) | (e << 16) | ((e + end - start) << 24)
            s[BASE + CARD_W * k + 1] = 0
            s[BASE + CARD_W * k + 3] = 0
            if not reuse:
                tag = (np.int64(k) << 40) | (start << MOVES)
                if end - start <= FILL and e + FILL <= cap:
                    for j in range(FILL):  # a fixed count (the entries past the card are overwritten)
                        s[pl + 2 * (e + j)] = tag + (np.int64(j) << MOVES)
                else:
                    for j in range(end - start):
                        s[pl + 2 * (e + j)] = tag + (np.int64(j) << MOVES)
            e += end - start
            k += 1
    rows = np.int64(0)
    for x in range(e):
        w = s[pl + 2 * x]
        i = (w >> MOVES) & 0x7FFFF
        hdr = BASE + CARD_W * ((w >> 40) & 63)
        mask = params[P_PL_MASK + i]
        value = params[P_PL_VALUE + i]
        if reuse:
            comp = w & (ALL_MOVES | MATCHED)
        else:
            comp = analyse(grid, mask, value)
            s[pl + 2 * x] = comp | w
        s[hdr + 1] |= comp
        if with_new:
            new, lose = _placement_rows(s, grid, mask, value, comp & ALL_MOVES, k0, k1, k2, k3)
            rows |= new
            s[pl + 2 * x + 1] = new | lose
            s[hdr + 3] |= new | ((new | lose) << MOVES)
    union = np.int64(0)
    for j in range(k):
        card_comp = s[BASE + CARD_W * j + 1]
        union |= card_comp
        add = (((s[BASE + CARD_W * j] >> 8) & 255) << 5) | 1
        while card_comp:  # the points and count each move completes from grid
            s[R0 + trailing_zeros(card_comp)] += add
            card_comp &= card_comp - 1
    s[U0] = union
    return k, rows


@kernel
def best_single_move(s, spare, cost):
    """From ``build_list``: the best single move (value, move; ties: lowest move), as
    ``_level1``."""
    best = NO_VALUE
    best_m = -1
    t = s[U0] & ALL_MOVES
    while t:
        m = trailing_zeros(t)
        t &= t - 1
        a = _root_acc(s, m)
        if a & 31 <= spare - 1:
            v = (a >> 5) - cost
            if v > best + EPS:
                best = v
                best_m = m
    if best_m < 0:
        idle = ~s[U0] & ALL_MOVES
        return -cost, trailing_zeros(idle) if idle else np.int64(0)
    return best, best_m


@kernel
def _build_puts(grid, s):
    """Which moves put which face where (PU); returns the moves that change a face of
    each tile kind (k0..k3)."""
    for i in range(PU_SIZE):
        s[PU + i] = 0
    k0 = np.int64(0)
    k1 = np.int64(0)
    k2 = np.int64(0)
    k3 = np.int64(0)
    for x in range(9):
        f = _face(grid, x)
        bit = np.int64(1) << (FLIP_BASE + x)
        _set_puts(s, x, f ^ 1, bit)
        kind = f >> 1
        k0 |= bit & -np.int64(kind == 0)
        k1 |= bit & -np.int64(kind == 1)
        k2 |= bit & -np.int64(kind == 2)
        k3 |= bit & -np.int64(kind == 3)
    for p in range(FLIP_BASE):
        a = PAIR_A[p]
        b = PAIR_B[p]
        fa = _face(grid, a)
        fb = _face(grid, b)
        bit = (np.int64(1) << p) & (np.int64(fa == fb) - 1)
        _set_puts(s, a, fb, bit)
        _set_puts(s, b, fa, bit)
        kinds = (np.int64(1) << (fa >> 1)) | (np.int64(1) << (fb >> 1))
        k0 |= bit & -(kinds & 1)
        k1 |= bit & -((kinds >> 1) & 1)
        k2 |= bit & -((kinds >> 2) & 1)
        k3 |= bit & -((kinds >> 3) & 1)
    return k0, k1, k2, k3


@kernel
def _placement_rows(s, grid, mask, value, comp, k0, k1, k2, k3):
    """(new, lose) of one placement (see ``build_list``)."""
    x_bits = (grid ^ value) & mask
    wrong = compress3(x_bits | (x_bits >> 1) | (x_bits >> 2))
    cb = mask & CELLBITS
    cells = compress3(cb)
    new = _new_rows(s, grid, cells, wrong, value)
    lose = np.int64(0)
    if comp:
        z1 = value ^ REP[2]
        z2 = value ^ REP[4]
        z3 = value ^ REP[6]
        km = ((k0 & -np.int64((~((value >> 1) | (value >> 2)) & cb) != 0))
              | (k1 & -np.int64((~((z1 >> 1) | (z1 >> 2)) & cb) != 0))
              | (k2 & -np.int64((~((z2 >> 1) | (z2 >> 2)) & cb) != 0))
              | (k3 & -np.int64((~((z3 >> 1) | (z3 >> 2)) & cb) != 0)))
        touch = MOVES_TOUCHING[cells]
        if wrong & (wrong - 1) == 0:
            # one wrong cell x: a swap completion is lost only if its neighbour moves; a
            # move touching x and no other cell of the footprint (a flip of x, a swap with a
            # neighbour outside) leaves every swap completion (x takes the neighbour's
            # face whatever it shows) and loses only the flip completion
            x = trailing_zeros(wrong | 512)
            xb = np.int64(1) << x
            used = np.int64(0)
            for k in range(4):
                used |= ((comp >> NB_PAIR[x, k]) & 1) << NB[x, k]
            touch = (MOVES_TOUCHING[(cells & ~xb) | used]
                     | (MOVES_TOUCHING[xb] & -((comp >> (FLIP_BASE + x)) & 1)))
        lose = touch & km
    return new, lose


@kernel
def _root_acc(s, m):
    """(points << 5) + count of the cards move m completes from the search's grid."""
    return s[R0 + m]


@kernel
def _most_points(s):
    """The most points one move completes from the search's grid (only the moves in U0
    complete anything)."""
    r = np.int64(0)
    t = s[U0] & ALL_MOVES
    while t:
        r = max(r, _root_acc(s, trailing_zeros(t)) >> 5)
        t &= t - 1
    return r


@kernel
def cards_after_move(params, grid, m1, slots, s):
    """The cards after first move ``m1`` (the list built for ``grid``, where m1 is one of
    the moves worth trying): returns (points, count) of the cards that match and
    the cards (bit k) whose completions may have changed; for those it leaves the new
    completions (MATCHED if it matches) in their third slot; the others keep the second."""
    pl = BASE + CARD_W * slots
    g1 = do_move(grid, m1)
    changed = np.int64(0)
    for k in range(slots):  # (gathered here: cheaper than a table per move in build_list)
        changed |= ((s[BASE + CARD_W * k + 3] >> (MOVES + m1)) & 1) << k
    pts = np.int64(0)
    n = np.int64(0)
    ch = changed
    while ch:
        k = trailing_zeros(ch)
        ch &= ch - 1
        hdr = s[BASE + CARD_W * k]
        comp = np.int64(0)
        for e in range((hdr >> 16) & 255, (hdr >> 24) & 255):
            w = s[pl + 2 * e]
            nl = s[pl + 2 * e + 1]
            if (nl >> m1) & 1:
                i = (w >> MOVES) & 0x7FFFF
                comp |= analyse(g1, params[P_PL_MASK + i], params[P_PL_VALUE + i])
            else:
                comp |= w & ALL_MOVES
        if comp & MATCHED:
            comp = MATCHED
            pts += (hdr >> 8) & 255
            n += 1
        s[BASE + CARD_W * k + 2] = comp
    return pts, n, changed


@kernel
def _changed_card(s, ch):
    """For the lowest card of the set ``ch`` (none: a void card 0): (its points and count
    as in R0, its completions at the search's grid, after the first move), the rest of ch."""
    valid = -np.int64(ch != 0)
    k = trailing_zeros(ch | (np.int64(1) << 62)) & valid
    add = ((((s[BASE + CARD_W * k] >> 8) & 255) << 5) | 1) & valid
    return add, s[BASE + CARD_W * k + 1] & valid, s[BASE + CARD_W * k + 2] & valid, ch & (ch - 1)


@kernel
def best_second_move(s, changed, limit, cost):
    """Best second move after ``cards_after_move``: (points completed - cost, move, whether a move was
    ruled out for completing more than ``limit`` cards); ties: lowest move; (NO_VALUE, -1,
    ...) if none.  The points and counts from the search's grid are corrected for the
    cards that changed (up to three, the usual case, without a loop per move: its exit
    is hard to predict)."""
    best = NO_VALUE
    best_m = -1
    over = False
    if popcount(changed) <= 3:
        add_a, old_a, new_a, ch = _changed_card(s, changed)
        add_b, old_b, new_b, ch = _changed_card(s, ch)
        add_c, old_c, new_c, ch = _changed_card(s, ch)
        union = (s[U0] | new_a | new_b | new_c) & ALL_MOVES
        # the best as a key, points << 5 | 31 - m (the cost is the same for every move, so
        # the most points win, then the lowest move): a max with no branch to mispredict
        key = np.int64(-1)
        out = np.int64(0)
        while union:
            m = trailing_zeros(union)
            union &= union - 1
            a = (_root_acc(s, m) + add_a * (((new_a >> m) & 1) - ((old_a >> m) & 1))
                 + add_b * (((new_b >> m) & 1) - ((old_b >> m) & 1))
                 + add_c * (((new_c >> m) & 1) - ((old_c >> m) & 1)))
            ov = np.int64(a & 31 > limit)
            out |= ov
            key = max(key, (((a >> 5) << 5) | (31 - m)) | -(ov | np.int64(a <= 0)))
        if key < 0:
            return best, best_m, out != 0
        return (key >> 5) - cost, 31 - (key & 31), out != 0
    union = s[U0]
    ch = changed
    while ch:
        k = trailing_zeros(ch)
        ch &= ch - 1
        union |= s[BASE + CARD_W * k + 2]
    union &= ALL_MOVES
    while union:
        m = trailing_zeros(union)
        union &= union - 1
        a = _root_acc(s, m)
        ch = changed
        while ch:
            k = trailing_zeros(ch)
            ch &= ch - 1
            add = ((s[BASE + CARD_W * k] >> 8) & 255) << 5 | 1
            a += add * (((s[BASE + CARD_W * k + 2] >> m) & 1) - ((s[BASE + CARD_W * k + 1] >> m) & 1))
        if a & 31 > limit:
            over = True
        elif a > 0:
            v = (a >> 5) - cost
            if v > best + EPS:
                best = v
                best_m = m
    return best, best_m, over


@kernel
def _bound(s, m, r, reach, cost, cv):
    """What first move m is worth at most (see ``_rows_best``)."""
    a = s[GAIN + m]
    rest = min(r, reach - (a >> GAIN_SHIFT))
    return (_root_acc(s, m) >> 5) - cost + max(0.0, rest + (a & GAIN_LOW) - cv)


@kernel
def _rows_best(params, grid, slots, rows, spare, cost, cv, s):
    """The best of the first moves in ``rows`` (value, move; ties: lowest move),
    (NO_VALUE, -1) if none.  A move is worth at most pts1 - cost + max(0, R + G - cv): the
    points it completes at once, G the points of the cards that may gain completions
    after it (the others keep theirs or lose some; a card the move completes is not
    counted in G, as it is scored at once), R the most one move completes from ``grid``,
    and at most the points of the cards with completions there that are neither
    completed by the move nor counted in G (what the other cards can still bring).
    The move with the highest bound is tried first, then the others in order;
    a move whose bound falls short of the best found cannot win and is not tried.
    The best move's changed cards and second move are left in scratch for the payer."""
    r = _most_points(s)
    t = rows
    while t:
        s[GAIN + trailing_zeros(t)] = 0
        t &= t - 1
    reach = np.int64(0)  # the points of the cards some move completes from grid
    for k in range(slots):
        p = (s[BASE + CARD_W * k] >> 8) & 255
        comp = s[BASE + CARD_W * k + 1] & ALL_MOVES
        new = s[BASE + CARD_W * k + 3] & ALL_MOVES
        # a card the first move completes is scored then, not by the second move
        g = new & rows & ~comp
        while g:
            s[GAIN + trailing_zeros(g)] += p
            g &= g - 1
        if comp:
            reach += p
            # ... and one that may gain is counted in G: neither is left for R
            g = (new | comp) & rows
            while g:
                s[GAIN + trailing_zeros(g)] += p << GAIN_SHIFT
                g &= g - 1
    first = -1
    top = NO_VALUE
    t = rows
    while t:
        m = trailing_zeros(t)
        t &= t - 1
        ub = _bound(s, m, r, reach, cost, cv)
        if ub > top + EPS:
            top = ub
            first = m
    best = NO_VALUE
    best_m = MOVES
    s[BEST_CHANGED] = 0
    t = rows
    while first >= 0 or t:
        if first >= 0:
            pick = first
            first = -1
            t &= ~(np.int64(1) << pick)
        else:
            pick = trailing_zeros(t)
            t &= t - 1
            ub = _bound(s, pick, r, reach, cost, cv)
            if ub < best - EPS or (ub <= best + EPS and pick > best_m):
                continue
        pts, n, changed = cards_after_move(params, grid, pick, slots, s)
        left = spare - 1 - n
        if left < 0:
            continue
        v = pts - cost
        tail, m2, over = best_second_move(s, changed, left - 1, cv)
        if tail > 0.0:
            v += tail
        else:
            m2 = -1
        if v > best + EPS or (v >= best - EPS and pick < best_m):
            best = v
            best_m = pick
            # for the payer: the cards that changed, their completions, the second move
            if popcount(changed) <= BEST_ROOM:
                s[BEST_CHANGED] = changed
                s[BEST_M2] = m2 | (np.int64(over) << 8)
                j = 0
                ch = changed
                while ch:
                    s[BEST_COMPS + j] = s[BASE + CARD_W * trailing_zeros(ch) + 2]
                    ch &= ch - 1
                    j += 1
            else:
                s[BEST_CHANGED] = -1
    if best_m == MOVES:
        best_m = -1
    return best, best_m


@kernel
def level2_over_list(params, grid, slots, rows, spare, cost, cv, s):
    """``_level2`` over the list built for ``grid`` (no card matches there),
    trying only the first moves in ``rows``.  Any other first move completes nothing and
    leaves no more completions than ``grid`` has, so it is worth at most
    -cost + max(0, R - cv) (R: the most points one move completes from ``grid``), less than
    the best single move when R > 0.  If the moves tried do not beat that bound (rare:
    e.g. the best single move would leave no card to pay), all 21 are tried."""
    best, best_m = _rows_best(params, grid, slots, rows, spare, cost, cv, s)
    r = _most_points(s)
    bound = -cost + max(0.0, r - cv)
    if best > bound + EPS:
        return best, best_m
    if bound <= 0.0 and best <= 0.0:
        # nothing pays: the value is what matters, not the move
        if best >= bound:
            return best, best_m
        return bound, np.int64(0)
    return _rows_best(params, grid, slots, ALL_MOVES, spare, cost, cv, s)


@kernel
def plan(params, grid, lo, hi, spare, depth, cost, cv, s):
    """``search`` from a decision's grid (no hand card matches there): (value, first move,
    list size).  Depth 2 runs over the placement list when it fits in scratch; the list
    size is -1 when it did not run."""
    if max(1, min(depth, spare - 1)) == 2:
        slots, rows = build_list(params, grid, lo, hi, s, YES, NO)
        if slots >= 0:
            v, m = level2_over_list(params, grid, slots, rows, spare, cost, cv, s)
            return v, m, slots
    v, m = search(params, grid, lo, hi, spare, depth, cost, cv, s)
    return v, m, np.int64(-1)


