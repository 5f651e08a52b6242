"""A Hasura-style GraphQL server for APICoreKit's tests: graphql-core (the Python port of graphql-js,
pinned in ../requirements.txt) executing schema.graphqls over two in-memory tables, under uvicorn
on 127.0.0.1.

graphql-core parses, validates and coerces every request as the reference implementation does:
a variable that does not fit its type is refused before any resolver runs. The resolvers then
evaluate the boolean expressions (`_and`, `_or`, `_not`, comparisons, relationships) on the rows,
so an answer shows that the filter arrived whole and typed. Every request's variables, as
received, are kept; `{ "query": "__received" }` is not GraphQL: it answers them, for the tests.

    python hasura/server.py [--port N]   prints "listening on <port>" once bound, then serves until killed
"""

import fnmatch
import json
import os
import sys

from graphql import build_schema, graphql_sync

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from loopback import serve  # noqa: E402 (Interop/, beside this folder)

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "schema.graphqls"), encoding="utf-8") as file:
    schema = build_schema(file.read())

AUTHORS = [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}, {"id": 3, "name": "Cy"}]
ARTICLES = [
    {"id": 1, "title": "Swift on servers", "rating": 4, "author_id": 1, "published_at": "2026-01-02T03:04:05Z"},
    {"id": 2, "title": "Boolean algebra", "rating": 5, "author_id": 1, "published_at": None},
    {"id": 3, "title": "Learning swift", "rating": 2, "author_id": 2, "published_at": None},
    {"id": 4, "title": "Tables", "rating": None, "author_id": 3, "published_at": None},
    {"id": 5, "title": "Swift concurrency", "rating": 3, "author_id": 3, "published_at": None},
]
RECEIVED = []


def author_of(article):
    return next(author for author in AUTHORS if author["id"] == article["author_id"])


def articles_of(author):
    return [article for article in ARTICLES if article["author_id"] == author["id"]]


def like(value, pattern, fold):
    regex = pattern.replace("%", "*").replace("_", "?")
    return fnmatch.fnmatchcase(value.lower() if fold else value, regex.lower() if fold else regex)


def compare(value, expression):
    """A column against a `<type>_comparison_exp`: every given operator must hold."""
    tests = {
        "_eq": lambda v, x: v == x, "_neq": lambda v, x: v != x,
        "_gt": lambda v, x: v is not None and v > x, "_gte": lambda v, x: v is not None and v >= x,
        "_lt": lambda v, x: v is not None and v < x, "_lte": lambda v, x: v is not None and v <= x,
        "_in": lambda v, x: v in x, "_nin": lambda v, x: v not in x,
        "_is_null": lambda v, x: (v is None) == x,
        "_like": lambda v, x: v is not None and like(v, x, False), "_nlike": lambda v, x: v is None or not like(v, x, False),
        "_ilike": lambda v, x: v is not None and like(v, x, True), "_nilike": lambda v, x: v is None or not like(v, x, True),
    }
    return all(tests[operator](value, operand) for operator, operand in expression.items())


def matches(row, expression, table):
    """A row against a `<table>_bool_exp`, fields combined with AND."""
    for key, value in expression.items():
        if key == "_and":
            ok = all(matches(row, item, table) for item in value)
        elif key == "_or":
            ok = any(matches(row, item, table) for item in value)
        elif key == "_not":
            ok = not matches(row, value, table)
        elif table == "articles" and key == "author":
            ok = matches(author_of(row), value, "authors")
        elif table == "authors" and key == "articles":
            ok = any(matches(article, value, "articles") for article in articles_of(row))
        else:
            ok = compare(row.get(key), value)
        if not ok:
            return False
    return True


def ordered(rows, order_by):
    """Rows sorted by a list of `<table>_order_by`, the first the most significant (stable sorts,
    from the least significant up); nulls first or last as the direction says."""
    def clause(row, order):
        for column, direction in order.items():
            if isinstance(direction, dict):
                return clause(author_of(row), direction)
            return row.get(column), direction
        return None, "asc"
    result = list(rows)
    for order in reversed(order_by or []):
        direction = clause(result[0], order)[1] if result else "asc"
        present = sorted((row for row in result if clause(row, order)[0] is not None),
                         key=lambda row: clause(row, order)[0], reverse=direction.startswith("desc"))
        absent = [row for row in result if clause(row, order)[0] is None]
        nulls_first = direction in ("asc_nulls_first", "desc", "desc_nulls_first")
        result = absent + present if nulls_first else present + absent
    return result


def select(rows, table, where=None, order_by=None, limit=None, offset=None):
    found = [row for row in rows if matches(row, where or {}, table)]
    found = ordered(found, order_by)
    found = found[offset or 0:]
    return found if limit is None else found[:limit]


def aggregate(rows):
    ratings = [row["rating"] for row in rows if row["rating"] is not None]
    return {
        "nodes": rows,
        "aggregate": {
            "count": len(rows),
            "avg": {"rating": sum(ratings) / len(ratings) if ratings else None},
            "max": {"rating": max(ratings) if ratings else None, "title": max((row["title"] for row in rows), default=None)},
        },
    }


def upsert(_root, _info, object, on_conflict=None):
    existing = next((row for row in ARTICLES if row["id"] == object.get("id")), None)
    if existing is None:
        row = {"rating": None, "published_at": None, **object}
        ARTICLES.append(row)
        return row
    if on_conflict is None:
        raise ValueError('Uniqueness violation. duplicate key value violates unique constraint "articles_pkey"')
    if not matches(existing, on_conflict.get("where") or {}, "articles"):
        return None
    for column in on_conflict["update_columns"]:
        existing[column] = object.get(column)
    return existing


query = schema.query_type.fields
query["authors"].resolve = lambda _root, _info, **args: select(AUTHORS, "authors", **args)
query["articles"].resolve = lambda _root, _info, **args: select(ARTICLES, "articles", **args)
query["articles_aggregate"].resolve = lambda _root, _info, where=None: aggregate(select(ARTICLES, "articles", where))
query["articles_by_pk"].resolve = lambda _root, _info, id: next((row for row in ARTICLES if row["id"] == id), None)
authors = schema.type_map["authors"].fields
authors["articles"].resolve = lambda author, _info, **args: select(articles_of(author), "articles", **args)
authors["articles_aggregate"].resolve = lambda author, _info, where=None: aggregate(select(articles_of(author), "articles", where))
schema.type_map["articles"].fields["author"].resolve = lambda article, _info: author_of(article)
schema.mutation_type.fields["insert_articles_one"].resolve = upsert


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    try:
        request = json.loads(body or b"{}")
    except ValueError:
        request = {}
    if request.get("query") == "__received":
        answer = {"received": RECEIVED}
    else:
        RECEIVED.append(request.get("variables"))
        result = graphql_sync(schema, request.get("query") or "", variable_values=request.get("variables"),
                              operation_name=request.get("operationName"))
        answer = {"data": result.data}
        if result.errors:
            answer["errors"] = [error.formatted for error in result.errors]
    data = json.dumps(answer).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/graphql-response+json"), (b"content-length", str(len(data)).encode())]})
    await send({"type": "http.response.body", "body": data})


def main() -> None:
    serve(app, __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
