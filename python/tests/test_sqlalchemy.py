"""The SQLAlchemy dialect: ``xrpc://`` URLs, Core and ORM basic CRUD against a node."""

import datetime
from decimal import Decimal

import pytest

sqlalchemy = pytest.importorskip("sqlalchemy")

from sqlalchemy import (  # noqa: E402
    Column,
    DateTime,
    ForeignKey,
    Integer,
    MetaData,
    Numeric,
    String,
    Table,
    create_engine,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship  # noqa: E402

import xrpc  # noqa: E402


@pytest.fixture
def engine(node):
    engine = create_engine(node.url(), pool_pre_ping=True)
    yield engine
    engine.dispose()


def test_the_url_selects_the_xrpc_dialect(engine):
    assert engine.dialect.name == "mysql"
    assert engine.dialect.driver == "xrpc"
    assert engine.dialect.dbapi is xrpc
    with engine.connect() as conn:
        assert conn.execute(select(1)).scalar() == 1


def test_core_crud(engine, table):
    metadata = MetaData()
    items = Table(
        table,
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("name", String(40), nullable=False),
        Column("price", Numeric(10, 2)),
        Column("added", DateTime),
    )
    metadata.create_all(engine)
    added = datetime.datetime(2024, 5, 6, 7, 8, 9)
    with engine.begin() as conn:
        result = conn.execute(
            insert(items), [{"name": "apple", "price": Decimal("1.25"), "added": added},
                            {"name": "pear", "price": Decimal("2.50"), "added": added}]
        )
        assert result.rowcount == 2
        one = conn.execute(insert(items).values(name="fig", price=Decimal("9.99")))
        assert one.inserted_primary_key[0] >= 1
    with engine.begin() as conn:
        assert conn.execute(
            update(items).where(items.c.name == "pear").values(price=Decimal("3.00"))
        ).rowcount == 1
        assert conn.execute(delete(items).where(items.c.name == "fig")).rowcount == 1
    with engine.connect() as conn:
        rows = conn.execute(select(items.c.name, items.c.price, items.c.added)
                            .order_by(items.c.name)).all()
        assert [tuple(r) for r in rows] == [
            ("apple", Decimal("1.25"), added),
            ("pear", Decimal("3.00"), added),
        ]
        assert conn.execute(select(func.count()).select_from(items)).scalar() == 2


def test_a_rolled_back_transaction_leaves_nothing(engine, table):
    metadata = MetaData()
    items = Table(table, metadata, Column("id", Integer, primary_key=True))
    metadata.create_all(engine)
    with engine.connect() as conn:
        with conn.begin() as tx:
            conn.execute(insert(items).values(id=1))
            tx.rollback()
        assert conn.execute(select(func.count()).select_from(items)).scalar() == 0


def test_integrity_errors_surface_as_sqlalchemy_integrity_errors(engine, table):
    metadata = MetaData()
    items = Table(table, metadata, Column("id", Integer, primary_key=True))
    metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(insert(items).values(id=1))
    with pytest.raises(sqlalchemy.exc.IntegrityError) as caught:
        with engine.begin() as conn:
            conn.execute(insert(items).values(id=1))
    assert caught.value.orig.errno == 1062


def test_orm_crud(engine, table):
    class Base(DeclarativeBase):
        pass

    class Author(Base):
        __tablename__ = f"{table}_author"
        id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
        name: Mapped[str] = mapped_column(String(50))
        books: Mapped[list["Book"]] = relationship(back_populates="author", cascade="all")

    class Book(Base):
        __tablename__ = table
        id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
        title: Mapped[str] = mapped_column(String(100))
        author_id: Mapped[int] = mapped_column(ForeignKey(f"{table}_author.id"))
        author: Mapped[Author] = relationship(back_populates="books")

    Base.metadata.create_all(engine)
    try:
        with Session(engine) as session:
            ada = Author(name="Ada", books=[Book(title="Notes"), Book(title="Sketches")])
            session.add(ada)
            session.commit()
            ada_id = ada.id
        with Session(engine) as session:
            ada = session.get(Author, ada_id)
            assert sorted(b.title for b in ada.books) == ["Notes", "Sketches"]
            ada.name = "Ada L."
            ada.books[0].title = "Notes, revised"
            session.commit()
        with Session(engine) as session:
            ada = session.scalars(select(Author).where(Author.name == "Ada L.")).one()
            assert "Notes, revised" in {b.title for b in ada.books}
            session.delete(ada)
            session.commit()
            assert session.scalar(select(func.count()).select_from(Book)) == 0
    finally:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"DROP TABLE IF EXISTS {table}")
            conn.exec_driver_sql(f"DROP TABLE IF EXISTS {table}_author")
