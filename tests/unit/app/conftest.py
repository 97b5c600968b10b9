from __future__ import annotations

import random

import pytest

from cuckoo_bot.app.deps import Deps
from cuckoo_bot.app.model import Chat, Player

from .fakes import FakeClock, FakeUnitOfWorkFactory, World


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def deps(world: World, clock: FakeClock) -> Deps:
    return Deps(
        uow=FakeUnitOfWorkFactory(world, clock),
        rng=random.Random(7),
        clock=clock,
        turn_timeout=90,
        lobby_timeout=600,
    )


@pytest.fixture
def group() -> Chat:
    return Chat(id=-100123, title="Friday cards")


def person(user_id: int, name: str, lang: str = "en") -> Player:
    return Player(id=user_id, first_name=name, language=lang, can_dm=True)
