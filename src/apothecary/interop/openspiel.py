"""Every apothecary game as an OpenSpiel game.

>>> import pyspiel
>>> from apothecary.interop import openspiel
>>> names = openspiel.register()
>>> game = pyspiel.load_game(names[0], {"players": 3})

:func:`register` registers each game of :func:`apothecary.games` with
``pyspiel.register_game`` as ``apothecary_<game>`` (hyphens become
underscores). Its game parameters are ``players`` and the game's options, with
the same names, types and defaults; :func:`load` does the same in apothecary's
own terms and raises apothecary's errors for an unknown game or option.

The OpenSpiel state wraps an apothecary state and defers every rule to it:
chance is explicit (``chance_outcomes``), action ids are the game's own (chance
outcomes share the id space, so ``max_chance_outcomes`` equals
``num_distinct_actions``), returns are ``state.returns()`` at the end (a win
shared by k seats pays 1/k each), and ``resample_from_infostate`` draws from
the game's own resampler, which is what OpenSpiel's ISMCTS needs.

Observers: the default observer gives ``observation_string`` (the seat's
observation as canonical JSON) and ``observation_tensor``; the perfect-recall
observer gives ``information_state_string`` and ``information_state_tensor``
(the game's perfect-recall tensor, of ``information_state_tensor_size()``), and
the game type says ``provides_information_state_tensor=True``; a game from
another package that defines no such tensor (see
``Game.provides_information_state_tensor``) gets the string only and the flag
False.

Serialisation works through OpenSpiel's own (``serialize_game_and_state`` and
pickle): the state pickles as its game settings and action history and is
rebuilt by replaying them.

OpenSpiel's C++ search bots (``pyspiel.MCTSBot``, ``pyspiel.ISMCTSBot``) crash
on any Python-registered game, OpenSpiel's own Python games included; use the
Python bots in ``open_spiel.python.algorithms`` (``mcts.MCTSBot``,
``ismcts.ISMCTSBot``), which work.

Needs ``pip install 'apothecary[rl]'``.
"""

from __future__ import annotations

import random
import urllib.parse
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]

from apothecary.core.bot import Bot
from apothecary.core.errors import BadOptionError
from apothecary.core.game import Game, GameInfo, OptionSpec, State
from apothecary.core.registry import game_class, games
from apothecary.core.registry import load as load_apothecary
from apothecary.interop import action_id, openspiel_name

_REGISTERED: dict[str, str] = {}
"""OpenSpiel short name -> apothecary name, for games registered by this process."""


# -- registration --------------------------------------------------------------


def register(names: list[str] | None = None) -> list[str]:
    """Register games with OpenSpiel (all of them by default); returns their
    OpenSpiel names. Registering a game twice is harmless."""
    chosen = games() if names is None else names
    registered = []
    for name in chosen:
        cls = game_class(name)  # an unknown name raises UnknownGameError here
        short_name = openspiel_name(name)
        if short_name not in _REGISTERED:
            pyspiel.register_game(_game_type(cls), _game_class(name))
            _REGISTERED[short_name] = name
        registered.append(short_name)
    return registered


def load(name: str, /, players: int | None = None, **options: Any) -> Any:
    """The OpenSpiel game for apothecary game ``name``, configured like
    ``apothecary.load(name, players, **options)`` and checked the same way."""
    game = load_apothecary(name, players, **options)
    register([name])
    return pyspiel.load_game(openspiel_name(name), _parameters(game))


def _parameters(game: Game) -> dict[str, Any]:
    """The OpenSpiel parameters of a configured game (text options encoded)."""
    options = {k: _encode(v) if isinstance(v, str) else v for k, v in game.options.items()}
    return {"players": game.num_players, **options}


def _game_type(cls: type[Game]) -> Any:
    info: GameInfo = cls.info
    # A property of the class (whether it defines the tensor), asked of its
    # default configuration; every configuration of a class answers alike.
    provides_information_state_tensor = cls().provides_information_state_tensor
    specification: dict[str, Any] = {"players": info.default_players}
    for spec in cls.option_specs:
        specification[spec.name] = _default(spec)
    game_type = pyspiel.GameType
    return game_type(
        short_name=openspiel_name(info.name),
        long_name=f"apothecary {info.title}",
        dynamics=game_type.Dynamics.SEQUENTIAL,
        chance_mode=(
            game_type.ChanceMode.EXPLICIT_STOCHASTIC
            if info.has_chance
            else game_type.ChanceMode.DETERMINISTIC
        ),
        information=(
            game_type.Information.IMPERFECT_INFORMATION
            if info.has_hidden_information
            else game_type.Information.PERFECT_INFORMATION
        ),
        # Returns are win shares: they sum to 1 when somebody wins and to 0
        # when nobody does, so the sum is not constant.
        utility=game_type.Utility.GENERAL_SUM,
        reward_model=game_type.RewardModel.TERMINAL,
        max_num_players=info.max_players,
        min_num_players=info.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=provides_information_state_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=specification,
    )


def _information_state_tensor_size(game: Game) -> int | None:
    """The game's information-state tensor length, if it defines one."""
    return game.information_state_tensor_size() if game.provides_information_state_tensor else None


def _default(spec: OptionSpec) -> Any:
    # OpenSpiel keeps a parameter's type from its default, so a float option
    # whose default is written as an int must still default to a float.
    if spec.type is float:
        return float(spec.default)
    if spec.type is str:
        return _encode(str(spec.default))
    return spec.default


def _encode(text: str) -> str:
    """A text option as an OpenSpiel parameter that survives its game string.

    OpenSpiel writes a game as ``name(key=value,...)`` and reads values back
    by their look: ``8+8`` would come back as the int 8, and a comma or a
    parenthesis would split the string. Everything but letters, digits and
    ``_`` is percent-encoded, and so is a first character that would still
    make the value read as a number or a bool.
    """
    out = "".join(
        ch if ch.isascii() and (ch.isalnum() or ch == "_") else _escape(ch) for ch in text
    )
    if out and (out.strip("0123456789") == "" or out.lower() in ("true", "false")):
        out = _escape(out[0]) + out[1:]
    return out


def _escape(ch: str) -> str:
    return "".join(f"%{byte:02X}" for byte in ch.encode("utf-8"))


def _decode(value: Any) -> Any:
    """The option text of an OpenSpiel string parameter (plain text passes as is)."""
    return urllib.parse.unquote(value) if isinstance(value, str) else value


def _game_class(name: str) -> type[ApothecarySpielGame]:
    """A subclass of :class:`ApothecarySpielGame` bound to game ``name``.

    OpenSpiel keeps the creator it is given until the process exits and
    releases it after Python has shut down; a class (as OpenSpiel's own Python
    games register) outlives that safely, where a plain function would be
    freed then and abort the interpreter. It is also put in this module, so
    the game pickles by reference like any class.
    """
    class_name = "ApothecarySpielGame_" + name.replace("-", "_")
    cls: type[ApothecarySpielGame] | None = globals().get(class_name)
    if cls is None:
        cls = type(class_name, (ApothecarySpielGame,), {"apothecary_name": name})
        cls.__module__ = __name__
        globals()[class_name] = cls
    return cls


# -- the game ------------------------------------------------------------------


class ApothecarySpielGame(pyspiel.Game):  # type: ignore[misc]
    """An apothecary game, configured, as an OpenSpiel game.

    :func:`register` makes one subclass per game, setting :attr:`apothecary_name`.
    """

    apothecary_name: str
    """The registry name of the apothecary game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        name = self.apothecary_name
        settings = {key: _decode(value) for key, value in (params or {}).items()}
        players = settings.pop("players", None)
        # apothecary checks the settings first, so bad ones raise its own
        # clear errors rather than OpenSpiel's.
        self.apothecary_game: Game = load_apothecary(name, players, **settings)
        game = self.apothecary_game
        cls = type(game)
        size = game.num_distinct_actions()
        info = pyspiel.GameInfo(
            num_distinct_actions=size,
            max_chance_outcomes=size if cls.info.has_chance else 0,
            num_players=game.num_players,
            min_utility=0.0,
            max_utility=1.0,
            max_game_length=game.max_game_length(),
        )
        full = {**{s.name: _default(s) for s in cls.option_specs}, **_parameters(game)}
        super().__init__(_game_type(cls), info, full)
        self._initial = game.new_initial_state()

    def fresh_state(self) -> State:
        """A new apothecary state at the start of the game.

        OpenSpiel makes a new initial state for every clone (and then copies
        the cloned attributes over it), so it is cloned from a kept start
        rather than built: several times cheaper for the games with a deal.
        """
        return self._initial.clone()

    def new_initial_state(self) -> ApothecarySpielState:
        """A fresh game at its start."""
        return ApothecarySpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> ApothecaryObserver:
        """An observer for ``iig_obs_type`` (OpenSpiel's default: the observation)."""
        if isinstance(iig_obs_type, dict):
            # OpenSpiel calls make_py_observer(params) when no type is given.
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise BadOptionError(f"observer parameters are not supported; got {params}")
        return ApothecaryObserver(self.apothecary_game, iig_obs_type)


class _Position:
    """Holds the apothecary state inside an OpenSpiel state.

    OpenSpiel clones a Python state by deep-copying its attributes and
    serialises it by pickling them; this holder makes the first a cheap
    ``State.clone()`` and the second the game's settings plus its history.
    """

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        return _Position(self.state.clone())

    def __reduce__(self) -> tuple[Any, ...]:
        game = self.state.game
        return (_replay, (game.name, game.num_players, dict(game.options), self.state.history()))


def _replay(name: str, players: int, options: dict[str, Any], history: list[int]) -> _Position:
    state = load_apothecary(name, players, **options).new_initial_state()
    for action in history:
        state.apply_action(action)
    return _Position(state)


class ApothecarySpielState(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state that defers every rule to an apothecary state."""

    def __init__(self, game: ApothecarySpielGame, position: State | None = None) -> None:
        super().__init__(game)
        self.position = _Position(position if position is not None else game.fresh_state())

    def __deepcopy__(self, memo: dict[int, Any]) -> ApothecarySpielState:
        # pyspiel.State pickles as the game and the history, so copy.deepcopy
        # would rebuild the game and replay every action (milliseconds late in a
        # long game); OpenSpiel's own clone copies this state's attributes, the
        # apothecary state through State.clone().
        return self.clone()  # type: ignore[no-any-return]

    def __copy__(self) -> ApothecarySpielState:
        # A shallow copy would share the apothecary state, so a move on the copy
        # would move the original too.
        return self.clone()  # type: ignore[no-any-return]

    @property
    def apothecary_state(self) -> State:
        """The wrapped apothecary state (read it; change it only through this state)."""
        return self.position.state

    def current_player(self) -> int:
        """The seat to act, or OpenSpiel's CHANCE / TERMINAL (the same numbers)."""
        return self.position.state.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self.position.state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``[(action, probability)]`` at a chance node."""
        return self.position.state.chance_outcomes()

    # OpenSpiel's own apply_action converts True to 1 and an IntEnum member to
    # its value before this class sees it, so the id is checked on the way in.

    def apply_action(self, action: Any) -> None:
        """Play ``action``, an id as an int or a NumPy integer (not a bool or an enum)."""
        super().apply_action(action_id(action))

    def apply_action_with_legality_check(self, action: Any) -> None:
        """OpenSpiel's checked apply_action, with the same check of the id's type."""
        super().apply_action_with_legality_check(action_id(action))

    def child(self, action: Any) -> ApothecarySpielState:
        """A copy of this state after ``action`` (an id, checked as for apply_action)."""
        return super().child(action_id(action))  # type: ignore[no-any-return]

    def _apply_action(self, action: int) -> None:
        self.position.state.apply_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.position.state.action_to_string(int(action))

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.position.state.is_terminal()

    def returns(self) -> list[float]:
        """Win shares at the end, zeros before."""
        return self.position.state.returns()

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> Any:
        """A state drawn from those ``player`` cannot tell from this one.

        ``probability_sampler`` is OpenSpiel's callable giving uniform floats in
        [0, 1); it seeds the game's resampler, so the same sampler gives the
        same world.
        """
        seed = int(probability_sampler() * 2**53)
        world = self.position.state.resample_from_infostate(player, random.Random(seed))
        # Replayed through this class so that OpenSpiel's own history (kept in
        # C++, not settable from Python) matches the world's.
        state = self.get_game().new_initial_state()
        for action in world.history():
            state.apply_action(action)
        return state

    def __str__(self) -> str:
        return str(self.position.state)


# -- bots ----------------------------------------------------------------------


class SpielBot(pyspiel.Bot):  # type: ignore[misc]
    """An apothecary bot as an OpenSpiel bot, for OpenSpiel's loops (``evaluate_bots``).

    It reads only the wrapped apothecary state, so it plays exactly as it does
    in apothecary's own match loop.
    """

    def __init__(self, bot: Bot) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot

    def step(self, state: ApothecarySpielState) -> int:
        """The bot's action for the seat to move."""
        return self.bot.step(state.apothecary_state)

    def restart_at(self, state: ApothecarySpielState) -> None:
        """Play restarts from ``state``."""
        self.bot.restart_at(state.apothecary_state)

    def inform_action(self, state: ApothecarySpielState, player_id: int, action: int) -> None:
        """``player_id`` played ``action`` in ``state``."""
        self.bot.inform_action(state.apothecary_state, player_id, int(action))


# -- observers -----------------------------------------------------------------


class ApothecaryObserver:
    """OpenSpiel's Python observer interface over the game protocol.

    - default / imperfect recall, private information: the seat's observation
      (``observation_string`` and ``observation_tensor``);
    - perfect recall: the seat's information state (``information_state_string``
      and ``information_state_tensor``; the string only for a game from
      elsewhere that defines no such tensor);
    - public information only: a spectator's observation (string only).
    """

    def __init__(self, game: Game, iig_obs_type: Any) -> None:
        self.tensor: np.ndarray[Any, Any] | None = None
        self.dict: dict[str, np.ndarray[Any, Any]] = {}
        private = pyspiel.PrivateInfoType.SINGLE_PLAYER
        public = True
        perfect_recall = False
        if iig_obs_type is not None:
            private = iig_obs_type.private_info
            public = iig_obs_type.public_info
            perfect_recall = iig_obs_type.perfect_recall
        if not public:
            raise BadOptionError(
                "apothecary games observe public and private information together; "
                "an observer without public information is not available"
            )
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise BadOptionError("an observer of every seat's private information is not available")
        if perfect_recall:
            if private != pyspiel.PrivateInfoType.SINGLE_PLAYER:
                raise BadOptionError("a public perfect-recall observer is not available")
            self._kind = "infostate"
            size = _information_state_tensor_size(game)
            if size is not None:
                self.tensor = np.zeros(size, np.float32)
                self.dict = {"info_state": self.tensor}
        elif private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            self._kind = "observation"
            self.tensor = np.zeros(game.observation_tensor_size(), np.float32)
            self.dict = {"observation": self.tensor}
        else:
            self._kind = "public"

    def set_from(self, state: ApothecarySpielState, player: int) -> None:
        """Write ``player``'s tensor of ``state`` (by the observer's kind) into :attr:`tensor`."""
        if self.tensor is None:
            return
        inner = state.position.state
        if self._kind == "infostate":
            inner.write_information_state_tensor(player, self.tensor)
        else:
            self.tensor[:] = inner.observation_tensor(player)

    def string_from(self, state: ApothecarySpielState, player: int) -> str:
        """``player``'s view of ``state`` as text, by the observer's kind."""
        inner = state.position.state
        if self._kind == "infostate":
            return inner.information_state_string(player)
        if self._kind == "observation":
            return inner.observation_string(player)
        return inner.observation_string(None)


__all__ = [
    "ApothecaryObserver",
    "ApothecarySpielGame",
    "ApothecarySpielState",
    "SpielBot",
    "load",
    "register",
]
