from fastapi.testclient import TestClient

from app.main import app


def test_health_and_ready() -> None:
    client = TestClient(app)
    assert client.get("/health").json() == {"status": "ok"}
    assert client.get("/ready").json() == {"status": "ready"}
