"""The interop suite's third-party server: strawberry-graphql's ASGI app under uvicorn, on 127.0.0.1.

A small library of books written the way a strawberry user writes a schema: an enum, a custom
scalar (DateTime), a field that always fails (for partial data), a mutation, a file upload, a
subscription, over both WebSocket protocols, HTTP multipart and server-sent events (graphql-sse).
Nothing here knows APICoreKit.

    python server.py [--port N]     prints "listening on <port>" once bound, then serves until killed
    python server.py --print-schema prints the schema (SDL), as committed in schema.graphqls
"""

import asyncio
import datetime
import enum
import hashlib
import sys
from typing import AsyncGenerator, Optional

import strawberry
from strawberry.schema.config import StrawberryConfig
from strawberry.asgi import GraphQL
from strawberry.file_uploads import Upload
from strawberry.subscriptions import (
    GRAPHQL_SSE_PROTOCOL, GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL, MULTIPART_SUBSCRIPTION_PROTOCOL,
)

from loopback import serve


@strawberry.enum
class Genre(enum.Enum):
    FICTION = "FICTION"
    HISTORY = "HISTORY"
    SCIENCE = "SCIENCE"


@strawberry.type
class Book:
    id: strawberry.ID
    title: str
    genre: Genre
    published: datetime.datetime
    rating: Optional[int]

    @strawberry.field
    def secret(self) -> Optional[str]:
        raise PermissionError("the secret of a book is classified")


BOOKS = {
    "1": Book(id=strawberry.ID("1"), title="Dune", genre=Genre.FICTION,
              published=datetime.datetime(1965, 8, 1, tzinfo=datetime.timezone.utc), rating=5),
    "2": Book(id=strawberry.ID("2"), title="SPQR", genre=Genre.HISTORY,
              published=datetime.datetime(2015, 10, 20, tzinfo=datetime.timezone.utc), rating=None),
    "3": Book(id=strawberry.ID("3"), title="Cosmos", genre=Genre.SCIENCE,
              published=datetime.datetime(1980, 1, 1, 12, 30, tzinfo=datetime.timezone.utc), rating=4),
}


@strawberry.input
class BookInput:
    title: str
    genre: Genre
    published: datetime.datetime


@strawberry.type
class UploadResult:
    filename: str
    size: int
    sha256: str


@strawberry.type
class Query:
    @strawberry.field
    def book(self, id: strawberry.ID) -> Optional[Book]:
        return BOOKS.get(str(id))

    @strawberry.field
    def books(self, genre: Optional[Genre] = None) -> list[Book]:
        return [book for book in BOOKS.values() if genre is None or book.genre == genre]


@strawberry.type
class Mutation:
    @strawberry.mutation
    def add_book(self, input: BookInput) -> Book:
        book = Book(id=strawberry.ID(str(len(BOOKS) + 1)), title=input.title, genre=input.genre,
                    published=input.published, rating=None)
        BOOKS[str(book.id)] = book
        return book

    @strawberry.mutation
    async def upload(self, file: Upload) -> UploadResult:
        data = await file.read()
        return UploadResult(filename=file.filename, size=len(data), sha256=hashlib.sha256(data).hexdigest())


@strawberry.type
class Subscription:
    @strawberry.subscription
    async def count(self, to: int, interval_ms: int = 10) -> AsyncGenerator[int, None]:
        for number in range(1, to + 1):
            yield number
            await asyncio.sleep(interval_ms / 1000)


schema = strawberry.Schema(
    query=Query, mutation=Mutation, subscription=Subscription,
    # @defer and @stream, as graphql-core 3.3 executes them incrementally (answered as
    # multipart/mixed); batches of up to 10 operations (a JSON array POST).
    config=StrawberryConfig(enable_experimental_incremental_execution=True, batching_config={"max_operations": 10}),
)
app = GraphQL(
    schema,
    subscription_protocols=[GRAPHQL_TRANSPORT_WS_PROTOCOL, GRAPHQL_WS_PROTOCOL, MULTIPART_SUBSCRIPTION_PROTOCOL, GRAPHQL_SSE_PROTOCOL],
    multipart_uploads_enabled=True,
)


def main() -> None:
    if "--print-schema" in sys.argv:
        print(schema.as_str())
        return
    serve(app, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
