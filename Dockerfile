# rmqconsole: one binary with an embedded SQLite (cgo), built in a Go image and run on a
# small Debian base.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath -ldflags="-s -w" -o /out/rmqconsole .

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home /data rmqconsole \
 && mkdir -p /data && chown rmqconsole /data
COPY --from=build /out/rmqconsole /usr/local/bin/rmqconsole
USER rmqconsole
ENV RMQC_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8090
ENTRYPOINT ["/usr/local/bin/rmqconsole"]
